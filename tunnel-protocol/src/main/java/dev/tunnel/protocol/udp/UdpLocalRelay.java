package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
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
 * As in {@link UdpAssociation}: a datagram from the app goes onto the stream while its queue
 * has room, the stream holds a receive window of at least {@link UdpLimits#STREAM_WINDOW}, a datagram from the stream is dropped when the socket's outbound queue is
 * full, and credit is returned once each write is done or dropped. Datagrams that arrive before
 * the socket is connected wait (bounded by the stream's initial window, no credit returned).
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
    private final DatagramDecoder decoder;
    private final UdpDrops drops;
    private final long idleNanos;
    private Channel channel;
    private ArrayDeque<ByteBuf> early;
    private int earlyBytes;
    private long lastActive = System.nanoTime();
    private io.netty.util.concurrent.ScheduledFuture<?> idleCheck;
    private boolean ended;

    /** @param drops shared by the proxy's associations (one event loop) */
    public UdpLocalRelay(MuxStream stream, int maxPacketSize, UdpDrops drops, long idleNanos) {
        this.stream = stream;
        this.maxPacketSize = maxPacketSize;
        this.decoder = new DatagramDecoder(maxPacketSize);
        this.drops = drops;
        this.idleNanos = idleNanos;
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
        if (early != null) {
            ByteBuf datagram;
            while ((datagram = early.poll()) != null) {
                int bytes = datagram.readableBytes();
                channel.write(packet(datagram)).addListener(f -> stream.consumed(bytes));
            }
            stream.consumed(earlyBytes);
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
        if (ended || !stream.canQueue(payload.readableBytes() + DatagramFrames.HEADER_BYTES, UdpLimits.STREAM_QUEUE)) {
            payload.release();
            drops.drop(UdpDrops.tunnelFull(stream), ctx.channel().remoteAddress());
            return;
        }
        stream.write(DatagramFrames.encode(ctx.alloc(), payload));
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

    /** As a packet, not a bare buffer, so that epoll sends a batch of them with one sendmmsg call. */
    private DatagramPacket packet(ByteBuf datagram) {
        return new DatagramPacket(datagram, (java.net.InetSocketAddress) channel.remoteAddress());
    }

    // ---- stream side ----

    @Override
    public void onData(ByteBuf data) {
        int bytes = data.readableBytes();
        if (channel == null) {
            earlyBytes += bytes; // credit for the header bytes; each datagram's own once written
            decoder.decode(data, datagram -> {
                if (early == null) {
                    early = new ArrayDeque<>(4);
                }
                earlyBytes -= datagram.readableBytes();
                early.add(datagram);
            });
            return;
        }
        lastActive = System.nanoTime();
        ChannelFuture[] last = new ChannelFuture[1];
        long oversize = decoder.oversize();
        decoder.decode(data, datagram -> {
            if (!channel.isWritable()) {
                channel.flush(); // one tunnel read can bring more than the watermark: send what is queued first
            }
            if (!channel.isWritable()) {
                datagram.release();
                drops.drop(UdpDrops.Reason.SOCKET_FULL, channel.remoteAddress());
                return;
            }
            last[0] = channel.write(packet(datagram));
        });
        for (long n = decoder.oversize() - oversize; n > 0; n--) {
            drops.drop(UdpDrops.Reason.OVERSIZE, channel.remoteAddress());
        }
        if (last[0] == null) {
            stream.consumed(bytes);
        } else {
            last[0].addListener(f -> stream.consumed(bytes));
            stream.flushLater(channel);
        }
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
        // datagrams that found the stream full were dropped; nothing waits
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
        decoder.release();
        if (idleCheck != null) {
            idleCheck.cancel(false);
        }
        if (early != null) {
            early.forEach(ByteBuf::release);
            early = null;
        }
    }
}
