package dev.tunnel.bench.jmh;

import dev.tunnel.protocol.FrameDecoder;
import dev.tunnel.protocol.FrameEncoder;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxSettings;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.relay.StreamRelay;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * One tunneled connection with everything the tunnel's own Java code does for it and nothing
 * else: a public socket on the server side and a socket to the app on the client side, each
 * with the real {@link StreamRelay}, and the two {@link MuxSession}s behind the real frame codec,
 * all on {@link EmbeddedChannel}s wired back to back. No TLS, no syscalls: what is left is the
 * share of a request that is ours to optimise.
 *
 * <pre>
 *   publicSocket [StreamRelay] -> serverLink [FrameDecoder, FrameEncoder, MuxSession]
 *       =bytes=> clientLink [FrameDecoder, FrameEncoder, MuxSession] -> localSocket [StreamRelay]
 * </pre>
 *
 * <p>Threading: one thread drives everything ({@link #shuttle()} runs each channel's pending
 * tasks, among them the sessions' once-per-turn flush).
 */
final class MuxChain implements AutoCloseable {
    private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    private final EmbeddedChannel serverLink;
    private final EmbeddedChannel clientLink;
    private final EmbeddedChannel publicSocket;
    private EmbeddedChannel localSocket;

    MuxChain() {
        MuxSettings settings = MuxSettings.defaults();
        MuxSession server = new MuxSession(true, settings, null);
        MuxSession client = new MuxSession(false, settings,
                (stream, proxyId, source) -> localSocket = new EmbeddedChannel(new StreamRelay(stream)));
        serverLink = new EmbeddedChannel(new FrameDecoder(), new FrameEncoder(), server);
        clientLink = new EmbeddedChannel(new FrameDecoder(), new FrameEncoder(), client);
        server.start(settings.initialWindow());
        client.start(settings.initialWindow());
        MuxStream stream = server.openStream(1, "203.0.113.7:40000");
        publicSocket = new EmbeddedChannel(new StreamRelay(stream));
        shuttle();
        if (localSocket == null) {
            throw new IllegalStateException("the client did not accept the stream");
        }
    }

    /** Bytes a socket read of {@code length} would hand the relay: a fresh pooled direct buffer. */
    ByteBuf read(byte[] bytes) {
        return alloc.directBuffer(bytes.length).writeBytes(bytes);
    }

    /** A public client sends {@code data}; returns the bytes the app's socket was given. */
    int publicToLocal(ByteBuf data) {
        publicSocket.writeInbound(data);
        shuttle();
        return drain(localSocket);
    }

    /** The app answers {@code data}; returns the bytes the public socket was given. */
    int localToPublic(ByteBuf data) {
        localSocket.writeInbound(data);
        shuttle();
        return drain(publicSocket);
    }

    /** Runs pending tasks (flushes) and moves frames both ways until nothing moves. */
    private void shuttle() {
        boolean moved;
        do {
            publicSocket.runPendingTasks();
            if (localSocket != null) {
                localSocket.runPendingTasks();
            }
            serverLink.runPendingTasks();
            clientLink.runPendingTasks();
            moved = move(serverLink, clientLink) | move(clientLink, serverLink);
        } while (moved);
    }

    private static boolean move(EmbeddedChannel from, EmbeddedChannel to) {
        boolean any = false;
        ByteBuf buf;
        while ((buf = from.readOutbound()) != null) {
            to.writeInbound(buf);
            any = true;
        }
        return any;
    }

    /**
     * Moves both sessions' clocks on by {@code millis}: their timers (the RTT ping) fire during
     * the next writes, as they do when a run takes seconds on a busy machine.
     */
    void elapse(long millis) {
        serverLink.advanceTimeBy(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        clientLink.advanceTimeBy(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** What a socket would write out: counted and released. */
    private static int drain(EmbeddedChannel socket) {
        int bytes = 0;
        ByteBuf buf;
        while ((buf = socket.readOutbound()) != null) {
            bytes += buf.readableBytes();
            buf.release();
        }
        return bytes;
    }

    @Override
    public void close() {
        publicSocket.finishAndReleaseAll();
        if (localSocket != null) {
            localSocket.finishAndReleaseAll();
        }
        serverLink.finishAndReleaseAll();
        clientLink.finishAndReleaseAll();
    }
}
