package dev.tunnel.protocol.transport;

import io.netty.channel.ChannelFuture;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;
import java.io.IOException;

/**
 * Half-closes a socket (sends FIN, goes on reading) whose writes have all been flushed.
 *
 * <p>Netty's {@link DuplexChannel#shutdownOutput()} creates a {@code ChannelOutputShutdownException},
 * stack trace included, on every call, to fail writes queued after it: filling in that trace was
 * 7% of the tunnel server's event loop when every request is a new connection. Callers here have
 * flushed everything and write nothing afterwards, so on the native transports the socket is shut
 * down directly ({@code shutdown(fd, SHUT_WR)}, what Netty does too); Netty's socket records it,
 * so {@code isOutputShutdown()} reports it. NIO channels go through {@code shutdownOutput()}.
 *
 * <p>Threading: call on the channel's event loop.
 */
public final class HalfClose {
    private HalfClose() {
    }

    /** Sends FIN on {@code channel}; the caller must have flushed every write and make none after. */
    public static ChannelFuture shutdownOutput(DuplexChannel channel) {
        assert channel.eventLoop().inEventLoop();
        if (channel instanceof UnixChannel unix && unix.fd() instanceof Socket socket) {
            try {
                socket.shutdown(false, true);
                return channel.newSucceededFuture();
            } catch (IOException e) {
                return channel.newFailedFuture(e);
            }
        }
        return channel.shutdownOutput();
    }
}
