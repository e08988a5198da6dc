package dev.tunnel.server.proxy.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * Behind the {@link dev.tunnel.server.inbound.ProxyHeaderGate} of a tcp listener's connection
 * on a port that takes the PROXY protocol: once the gate lets the connection through
 * ({@code channelActive}), keeps the bytes of that read (behind a balancer's header, or a direct
 * visitor's first bytes) until it ends, then leaves and gives the connection and those bytes to
 * the {@link ConnectionSink}.
 *
 * <p>Threading: the connection's event loop.
 */
final class HeaderHandoff extends ChannelInboundHandlerAdapter {
    static final String NAME = "headerHandoff";

    private final ConnectionSink sink;
    private CompositeByteBuf behind;

    HeaderHandoff(ConnectionSink sink) {
        this.sink = sink;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        behind = ctx.alloc().compositeBuffer();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (behind != null && msg instanceof ByteBuf buf) {
            behind.addComponent(true, buf);
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (behind == null) {
            return;
        }
        ByteBuf first = behind;
        behind = null;
        ctx.pipeline().remove(this);
        if (!ctx.channel().isActive()) {
            first.release();
            return;
        }
        sink.acceptAfterHeader(ctx.channel(), first.isReadable() ? first : release(first));
    }

    private static ByteBuf release(ByteBuf empty) {
        empty.release();
        return null;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (behind != null) {
            behind.release();
            behind = null;
        }
    }
}
