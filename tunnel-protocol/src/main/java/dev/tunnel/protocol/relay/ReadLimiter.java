package dev.tunnel.protocol.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.AttributeKey;
import io.netty.util.UncheckedBooleanSupplier;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Paces the reads of one socket by a {@link TokenBucket} ({@code transport.bandwidthLimit}):
 * every byte read is taken from the bucket; a {@code read()} the relay asks for while the
 * bucket is in debt waits until it is not, and a read already under way stops looping as soon
 * as the bucket is in debt (the channel's {@link RecvByteBufAllocator} is wrapped once, so one
 * {@code read()} cannot drain the socket past the limit). Nothing is buffered or dropped: the
 * socket is simply read later, so TCP slows its sender.
 *
 * <p>One exception: once the peer has closed its side, epoll reads the socket to EOF whatever
 * the allocator says (edge-triggered RDHUP), so what is left in the socket's receive buffer at
 * that point goes through unpaced. The limit holds for the rest of the transfer.
 *
 * <p>Works with {@code AUTO_READ} off, as every relayed socket runs (Netty's traffic shaping
 * handlers toggle {@code AUTO_READ} and hold writes in a queue, which neither relay allows).
 * Placed first in the pipeline, so it counts the bytes as the socket delivered them; it may be
 * replaced by another (a keep-alive HTTP connection routed to another proxy).
 *
 * <p>Threading: the channel's event loop; the bucket may be shared with other channels. A channel
 * that moves to another loop ({@link dev.tunnel.protocol.transport.LoopMove}) takes a waiting
 * read with it: the timer is cancelled on the old loop when the channel leaves it and set again
 * on the new one when it arrives, so the timer never runs on a loop the channel has left.
 */
public final class ReadLimiter extends ChannelDuplexHandler {
    /** The limiter in the channel's pipeline now, which the wrapped allocator asks. */
    private static final AttributeKey<ReadLimiter> CURRENT = AttributeKey.valueOf(ReadLimiter.class, "current");

    private final TokenBucket bucket;
    private ScheduledFuture<?> delayed;
    /** A read waited for tokens when the channel left its loop: ask again on the next one. */
    private boolean readOnArrival;

    public ReadLimiter(TokenBucket bucket) {
        this.bucket = bucket;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        Channel channel = ctx.channel();
        if (channel.attr(CURRENT).getAndSet(this) == null && !(channel.config().getRecvByteBufAllocator()
                instanceof PacedReads)) {
            channel.config().setRecvByteBufAllocator(
                    new PacedReads(channel.config().getRecvByteBufAllocator(), channel));
        }
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
        if (delayed != null || readOnArrival) {
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
        return delayed != null || readOnArrival;
    }

    @Override
    public void channelUnregistered(ChannelHandlerContext ctx) {
        if (delayed != null) {
            delayed.cancel(false);
            delayed = null;
            readOnArrival = true;
        }
        ctx.fireChannelUnregistered();
    }

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) {
        ctx.fireChannelRegistered();
        if (readOnArrival) {
            readOnArrival = false;
            read(ctx);
        }
    }

    /** A read that waited here is asked for again through the pipeline as it is now. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        ctx.channel().attr(CURRENT).compareAndSet(this, null);
        boolean waited = readOnArrival || delayed != null;
        readOnArrival = false;
        if (delayed != null) {
            delayed.cancel(false);
            delayed = null;
        }
        if (waited && ctx.channel().isActive()) {
            ctx.channel().read();
        }
    }

    private boolean inDebt() {
        return bucket.waitNanos() > 0;
    }

    /** Read sizing as {@code delegate}'s, but the read loop stops once the current limiter's bucket is in debt. */
    private static final class PacedReads implements RecvByteBufAllocator {
        private final RecvByteBufAllocator delegate;
        private final Channel channel;

        PacedReads(RecvByteBufAllocator delegate, Channel channel) {
            this.delegate = delegate;
            this.channel = channel;
        }

        @Override
        public Handle newHandle() {
            return new Paced((ExtendedHandle) delegate.newHandle());
        }

        private boolean mayGoOn() {
            ReadLimiter limiter = channel.attr(CURRENT).get();
            return limiter == null || !limiter.inDebt();
        }

        private final class Paced extends ForwardingRecvHandle {
            Paced(ExtendedHandle inner) {
                super(inner);
            }

            @Override
            public boolean continueReading() {
                return inner.continueReading() && mayGoOn();
            }

            @Override
            public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
                return inner.continueReading(maybeMoreDataSupplier) && mayGoOn();
            }
        }
    }
}
