package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * Stands in a routed connection's pipeline from the moment its router leaves until the relay to
 * the chosen proxy takes it: keeps every byte read meanwhile (those a leaving decoder held behind
 * the head arrive as it leaves), then hands the connection and all of them on, or drops them.
 *
 * <p>Threading: the channel's event loop.
 */
public final class HeldBytes extends ChannelInboundHandlerAdapter {
    private final Channel channel;
    private final CompositeByteBuf bytes;

    /** @param first bytes to hand on ahead of everything read (the owner passes), or null */
    public HeldBytes(Channel channel, ByteBuf first) {
        this.channel = channel;
        this.bytes = channel.alloc().compositeBuffer();
        if (first != null) {
            bytes.addComponent(true, first);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            bytes.addComponent(true, buf);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    /** Leaves the pipeline and hands the connection with the held bytes to {@code target}; false (bytes released) if it closed meanwhile. */
    public boolean carryTo(VhostTarget target) {
        channel.pipeline().remove(this);
        if (!channel.isActive()) {
            bytes.release();
            return false;
        }
        target.carry(channel, bytes);
        return true;
    }

    /** Leaves the pipeline, releases the held bytes and closes the connection. */
    public void drop() {
        channel.pipeline().remove(this);
        bytes.release();
        channel.close();
    }
}
