package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.FrameDecoder;
import dev.tunnel.protocol.FrameEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * A server and a client {@link MuxSession}, each on its own {@link EmbeddedChannel} behind the
 * real frame codec, wired back to back by {@link #shuttle()}. Streams the server opens are
 * accepted on the client with a {@link RecordingHandler} (and the other way round).
 *
 * <p>Everything runs on the test thread; {@link #shuttle()} runs the scheduled flush tasks, since
 * MuxSession writes without flushing and flushes once per event-loop turn.
 */
final class MuxPair implements AutoCloseable {
    final EmbeddedChannel serverChannel;
    final EmbeddedChannel clientChannel;
    final MuxSession server;
    final MuxSession client;
    /** Streams the client accepted (opened by the server), in order. */
    final List<RecordingHandler> acceptedByClient = new ArrayList<>();
    /** Streams the server accepted (opened by the client), in order. */
    final List<RecordingHandler> acceptedByServer = new ArrayList<>();
    /** When set, the client accepts streams with this instead of a RecordingHandler. */
    StreamAcceptor clientAcceptor;
    /** The bulk lanes once {@link #withLanes()} joined them, else null, and their bulk owners. */
    EmbeddedChannel serverBulk;
    EmbeddedChannel clientBulk;
    MuxSession serverBulkOwner;
    MuxSession clientBulkOwner;
    /** The frame types each side received on its bulk lane, in order. */
    final List<String> serverBulkFrames = new ArrayList<>();
    final List<String> clientBulkFrames = new ArrayList<>();
    final List<String> serverExpressFrames = new ArrayList<>();
    final List<String> clientExpressFrames = new ArrayList<>();

    MuxPair(MuxSettings serverSettings, MuxSettings clientSettings) {
        this(serverSettings, clientSettings, true);
    }

    MuxPair(MuxSettings serverSettings, MuxSettings clientSettings, boolean serverAccepts) {
        server = new MuxSession(true, serverSettings, serverAccepts ? acceptInto(acceptedByServer) : null);
        StreamAcceptor recording = acceptInto(acceptedByClient);
        client = new MuxSession(false, clientSettings, (stream, proxyId, source) -> {
            if (clientAcceptor != null) {
                clientAcceptor.accept(stream, proxyId, source);
            } else {
                recording.accept(stream, proxyId, source);
            }
        });
        serverChannel = new EmbeddedChannel(new FrameDecoder(), new FrameSpy(serverExpressFrames), new FrameEncoder(), server);
        clientChannel = new EmbeddedChannel(new FrameDecoder(), new FrameSpy(clientExpressFrames), new FrameEncoder(), client);
        // what login would do: each side learns the other's initial window
        server.start(clientSettings.initialWindow());
        client.start(serverSettings.initialWindow());
    }

    /** What a join would do: each session gets a bulk lane, the two wired back to back. */
    MuxPair withLanes() {
        server.allowLanes();
        client.allowLanes();
        serverBulkOwner = server.newBulkOwner();
        clientBulkOwner = client.newBulkOwner();
        serverBulk = new EmbeddedChannel(new FrameDecoder(), new FrameSpy(serverBulkFrames), new FrameEncoder(),
                serverBulkOwner, new BulkLane(server, 90));
        clientBulk = new EmbeddedChannel(new FrameDecoder(), new FrameSpy(clientBulkFrames), new FrameEncoder(),
                clientBulkOwner, new BulkLane(client, 90));
        server.attachBulkLane(serverBulk, serverBulkOwner);
        client.attachBulkLane(clientBulk, clientBulkOwner);
        return this;
    }

    /** Records the type of each frame a side receives. */
    private static final class FrameSpy extends io.netty.channel.ChannelInboundHandlerAdapter {
        private final List<String> types;

        FrameSpy(List<String> types) {
            this.types = types;
        }

        @Override
        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
            types.add(msg instanceof dev.tunnel.protocol.ControlFrame c ? c.message().getClass().getSimpleName()
                    : msg.getClass().getSimpleName());
            ctx.fireChannelRead(msg);
        }
    }

    private static StreamAcceptor acceptInto(List<RecordingHandler> accepted) {
        return (stream, proxyId, source) -> {
            RecordingHandler handler = new RecordingHandler(stream, proxyId, source);
            accepted.add(handler);
        };
    }

    /** Runs pending flushes and moves bytes both ways until neither side has anything to send. */
    void shuttle() {
        boolean moved;
        do {
            runTurn(serverChannel);
            runTurn(clientChannel);
            moved = move(serverChannel, clientChannel) | move(clientChannel, serverChannel);
            if (serverBulk != null) {
                serverBulk.runPendingTasks();
                clientBulk.runPendingTasks();
                moved |= move(serverBulk, clientBulk) | move(clientBulk, serverBulk);
            }
        } while (moved);
    }

    /**
     * Runs what an event-loop turn would: the tasks, the timers due, and the tasks those queued
     * (an OPEN that waited a turn for its first bytes, then its flush).
     */
    static void runTurn(EmbeddedChannel channel) {
        channel.runPendingTasks();
        channel.runPendingTasks();
    }

    /**
     * As {@link #shuttle()}, but each step moves one buffer (a flush's worth or less) of a lane
     * and direction that {@code random} picks: the lanes' bytes arrive in every relative order
     * they may have on two connections, each lane's own order kept.
     */
    void shuttle(java.util.Random random) {
        EmbeddedChannel[][] routes = {{serverChannel, clientChannel}, {clientChannel, serverChannel},
                {serverBulk, clientBulk}, {clientBulk, serverBulk}};
        java.util.Map<EmbeddedChannel, java.util.ArrayDeque<ByteBuf>> pending = new java.util.HashMap<>();
        while (true) {
            for (EmbeddedChannel ch : new EmbeddedChannel[] {serverChannel, clientChannel, serverBulk, clientBulk}) {
                ch.runPendingTasks();
                ByteBuf buf;
                while ((buf = ch.readOutbound()) != null) {
                    pending.computeIfAbsent(ch, c -> new java.util.ArrayDeque<>()).add(buf);
                }
            }
            List<EmbeddedChannel[]> ready = new ArrayList<>();
            for (EmbeddedChannel[] route : routes) {
                if (pending.containsKey(route[0]) && !pending.get(route[0]).isEmpty()) {
                    ready.add(route);
                }
            }
            if (ready.isEmpty()) {
                return;
            }
            EmbeddedChannel[] route = ready.get(random.nextInt(ready.size()));
            ByteBuf buf = pending.get(route[0]).poll();
            if (route[1].isActive()) {
                route[1].writeInbound(buf);
            } else {
                buf.release();
            }
        }
    }

    private static boolean move(EmbeddedChannel from, EmbeddedChannel to) {
        boolean any = false;
        ByteBuf buf;
        while ((buf = from.readOutbound()) != null) {
            if (to.isActive()) {
                to.writeInbound(buf);
            } else {
                buf.release();
            }
            any = true;
        }
        return any;
    }

    /** Opens a stream from the server (a public connection) with a recording handler on it. */
    RecordingHandler openFromServer() {
        MuxStream stream = server.openStream(1, "203.0.113.7:40000");
        return new RecordingHandler(stream, 1, "203.0.113.7:40000");
    }

    RecordingHandler openFromClient() {
        MuxStream stream = client.openStream(2, "local");
        return new RecordingHandler(stream, 2, "local");
    }

    @Override
    public void close() {
        // A test slowed past the RTT probe's period (a busy machine) finds the probe due: closing
        // runs it, its PING waits for a flush that closing no longer runs, and the PING's failed
        // write is rethrown. Run the probe and then its flush first.
        for (int i = 0; i < 2; i++) {
            serverChannel.runPendingTasks();
            clientChannel.runPendingTasks();
            if (serverBulk != null) {
                serverBulk.runPendingTasks();
                clientBulk.runPendingTasks();
            }
        }
        serverChannel.finishAndReleaseAll();
        clientChannel.finishAndReleaseAll();
        if (serverBulk != null) {
            serverBulk.finishAndReleaseAll();
            clientBulk.finishAndReleaseAll();
        }
    }
}
