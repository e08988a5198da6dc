package dev.tunnel.protocol.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import java.util.concurrent.TimeUnit;

/**
 * Closes a tunnel connection at the end of a graceful stop, after the frames that its event loop
 * has yet to write are out: the FIN of a stream whose socket has just closed is written by a task
 * (Netty fires {@code channelInactive} from a task queued after the socket's close future
 * completed, and the stop path waits on close futures), so a plain {@code close()} from the
 * stopping thread can overtake it and the peer sees a reset stream instead of its end.
 *
 * <p>Two hops through the loop's task queue put the flush behind every task queued before this
 * call, including those queued by tasks that were already running; then the connection closes
 * once the flush is written, or after {@code timeoutMillis} if the peer does not read.
 *
 * <p>Threading: any thread.
 */
public final class LastWrites {
    /** How long a graceful stop waits for a connection's last frames to be written. */
    public static final long TIMEOUT_MILLIS = 2000;

    private LastWrites() {
    }

    /** Flushes what the loop has queued for {@code ch}, then closes it; the future completes when closed. */
    public static ChannelFuture flushThenClose(Channel ch, long timeoutMillis) {
        ch.eventLoop().execute(() -> ch.eventLoop().execute(() -> {
            if (!ch.isActive()) {
                ch.close();
                return;
            }
            ChannelFuture written = ch.writeAndFlush(Unpooled.EMPTY_BUFFER);
            var timeout = ch.eventLoop().schedule(() -> ch.close(), timeoutMillis, TimeUnit.MILLISECONDS);
            written.addListener((ChannelFutureListener) f -> {
                timeout.cancel(false);
                ch.close();
            });
        }));
        return ch.closeFuture();
    }
}
