package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.relay.TokenBucket;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;

/**
 * {@code transport.bandwidthLimit} on a UDP socket: datagrams read while the proxy's
 * {@link TokenBucket} (the same one-second-burst bucket TCP connections read through) is in debt
 * are dropped and counted as {@link UdpDrops.Reason#BANDWIDTH}; the rest go on. UDP cannot be
 * paced by pausing reads as TCP is (the kernel would drop the datagrams anyway, uncounted), so
 * over the limit it drops, as frp's limited UDP proxies end up doing once their queues are full.
 *
 * <p>Threading: the socket's loop; the bucket is thread-safe (shared by a proxy's sockets).
 */
public final class DatagramLimiter extends ChannelInboundHandlerAdapter {
    private final TokenBucket bucket;
    private final UdpDrops drops;

    public DatagramLimiter(TokenBucket bucket, UdpDrops drops) {
        this.bucket = bucket;
        this.drops = drops;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf payload = msg instanceof DatagramPacket packet ? packet.content() : msg instanceof ByteBuf b ? b : null;
        if (payload != null && !bucket.tryConsume(payload.readableBytes())) {
            drops.drop(UdpDrops.Reason.BANDWIDTH, msg instanceof DatagramPacket packet ? packet.sender()
                    : ctx.channel().remoteAddress());
            payload.release();
            return;
        }
        ctx.fireChannelRead(msg);
    }
}
