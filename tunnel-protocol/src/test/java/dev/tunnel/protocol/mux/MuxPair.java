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
        serverChannel = new EmbeddedChannel(new FrameDecoder(), new FrameEncoder(), server);
        clientChannel = new EmbeddedChannel(new FrameDecoder(), new FrameEncoder(), client);
        // what login would do: each side learns the other's initial window
        server.start(clientSettings.initialWindow());
        client.start(serverSettings.initialWindow());
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
        }
        serverChannel.finishAndReleaseAll();
        clientChannel.finishAndReleaseAll();
    }
}
