package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.relay.RelayCounter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The home end of one UDP association: a UDP socket of its own, connected to the local app, so
 * the app's replies come back to this socket and go onto this association's stream only. The
 * last handler of that socket's pipeline and the stream's handler.
 *
 * <h3>Dropping instead of queueing</h3>
 * As in {@link UdpAssociation}: the datagrams of one read of the socket are framed into one
 * batch ({@link DatagramBatch}) while the stream's queue has room, and written onto the stream
 * when the read completes; beyond that they wait at the entrance and the oldest is dropped when
 * the association's or the proxy's bound is reached; the stream holds a receive window of at least
 * {@link UdpLimits#STREAM_WINDOW}; a datagram from the stream is dropped when the socket's
 * outbound queue is full ({@link DatagramDelivery}). What the stream brings before the socket
 * is connected waits as it came (bounded by the stream's initial window, no credit returned).
 *
 * <h3>Closing</h3>
 * The stream's end (reset or FIN: the far side's idle timeout or eviction) closes the socket; the
 * socket's close or an idle period of {@code idleNanos} without a datagram either way resets
 * the stream.
 *
 * <p>Threading: the socket must be registered on the stream's session event loop.
 */
public final class UdpLocalRelay extends ChannelInboundHandlerAdapter implements StreamHandler {
    private static final Logger log = LoggerFactory.getLogger(UdpLocalRelay.class);

    private final MuxStream stream;
    private final int maxPacketSize;
    private final UdpDrops drops;
    private final UdpQueueBudget budget;
    private final long idleNanos;
    private final DatagramDelivery delivery;
    private DatagramBatch batch;
    private Channel channel;
    /** Chunks of the stream that came before the socket was connected. */
    private ArrayDeque<ByteBuf> early;
    private long lastActive = System.nanoTime();
    private io.netty.util.concurrent.ScheduledFuture<?> idleCheck;
    private boolean ended;

    /**
     * @param drops  shared by the proxy's associations (one event loop)
     * @param budget the proxy's entrance-queue budget, shared by its associations
     */
    public UdpLocalRelay(MuxStream stream, int maxPacketSize, UdpDrops drops, UdpQueueBudget budget, long idleNanos) {
        this.stream = stream;
        this.maxPacketSize = maxPacketSize;
        this.drops = drops;
        this.budget = budget;
        this.idleNanos = idleNanos;
        this.delivery = new DatagramDelivery(stream, maxPacketSize, drops, RelayCounter.NONE);
        stream.handler(this);
        stream.holdReceiveWindow(UdpLimits.STREAM_WINDOW);
    }

    /** The local socket could not be opened: abort the stream. */
    public void connectFailed() {
        end(ResetCode.CONNECT_FAILED);
    }

    // ---- socket side ----

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        if (ended) {
            channel.close();
            return;
        }
        batch = new DatagramBatch(stream, ctx.alloc(), drops, budget);
        if (early != null) {
            ByteBuf chunk;
            while ((chunk = early.poll()) != null) {
                delivery.deliver(chunk, channel, null);
            }
            early = null;
            channel.flush();
        }
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(100), idleNanos / 4);
        idleCheck = ctx.executor().scheduleAtFixedRate(this::checkIdle, period, period, TimeUnit.NANOSECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf payload = msg instanceof DatagramPacket packet ? packet.content() : msg instanceof ByteBuf b ? b : null;
        if (payload == null) {
            ReferenceCountUtil.release(msg);
            return;
        }
        lastActive = System.nanoTime();
        if (payload.readableBytes() > maxPacketSize) {
            payload.release();
            drops.drop(UdpDrops.Reason.OVERSIZE, ctx.channel().remoteAddress());
            return;
        }
        batch.add(payload, ctx.channel().remoteAddress()); // dropped, and counted, once the stream has ended
    }

    /** The read is over: its datagrams go onto the stream as one write. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        batch.flush();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        end(ResetCode.CANCEL);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // ICMP port unreachable (the app is not listening) arrives as an error on a connected socket
        log.debug("{} {}: {}", ctx.channel(), stream, cause.toString());
    }

    private void checkIdle() {
        drops.logPending();
        if (System.nanoTime() - lastActive >= idleNanos) {
            log.debug("{} {} idle for {} s: closed", channel, stream, TimeUnit.NANOSECONDS.toSeconds(idleNanos));
            end(ResetCode.CANCEL);
        }
    }

    // ---- stream side ----

    @Override
    public void onData(ByteBuf data) {
        if (channel == null) {
            if (early == null) {
                early = new ArrayDeque<>(4);
            }
            early.add(data);
            return;
        }
        lastActive = System.nanoTime();
        delivery.deliver(data, channel, null);
    }

    @Override
    public void onFin() {
        onReset(ResetCode.CANCEL);
    }

    @Override
    public void onReset(int code) {
        if (!ended) {
            ended = true;
            release();
            if (channel != null) {
                channel.close();
            }
        }
    }

    @Override
    public void onWritable() {
        if (batch != null) {
            batch.flush(); // datagrams that found the stream full wait in the entrance queue
        }
    }

    private void end(int code) {
        if (!ended) {
            ended = true;
            release();
            stream.reset(code);
            if (channel != null) {
                channel.close();
            }
        }
    }

    private void release() {
        delivery.release();
        if (batch != null) {
            batch.release();
        }
        if (idleCheck != null) {
            idleCheck.cancel(false);
        }
        if (early != null) {
            early.forEach(ByteBuf::release);
            early = null;
        }
    }
}
