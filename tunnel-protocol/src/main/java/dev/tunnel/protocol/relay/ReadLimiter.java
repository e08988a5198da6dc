package dev.tunnel.protocol.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Paces the reads of one socket by a {@link TokenBucket} ({@code transport.bandwidthLimit}):
 * every byte read is taken from the bucket, and a {@code read()} the relay asks for while the
 * bucket is in debt waits until it is not. Nothing is buffered or dropped: the socket is simply
 * read later, so its sender is slowed by TCP.
 *
 * <p>Works with {@code AUTO_READ} off, as every relayed socket runs (Netty's traffic shaping
 * handlers toggle {@code AUTO_READ} and hold writes in a queue, which neither relay allows).
 * Placed first in the pipeline, so it counts the bytes as the socket delivered them.
 *
 * <p>Threading: the channel's event loop; the bucket may be shared with other channels.
 */
public final class ReadLimiter extends ChannelDuplexHandler {
    private final TokenBucket bucket;
    private ScheduledFuture<?> delayed;

    public ReadLimiter(TokenBucket bucket) {
        this.bucket = bucket;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf data) {
            bucket.consume(data.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        if (delayed != null) {
            return; // a read is already waiting for tokens
        }
        long wait = bucket.waitNanos();
        if (wait == 0) {
            ctx.read();
            return;
        }
        delayed = ctx.executor().schedule(() -> {
            delayed = null;
            if (ctx.channel().isActive()) {
                read(ctx);
            }
        }, wait, TimeUnit.NANOSECONDS);
    }

    /** Whether a read is waiting for tokens now. */
    public boolean isPaused() {
        return delayed != null;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (delayed != null) {
            delayed.cancel(false);
            delayed = null;
        }
    }
}
