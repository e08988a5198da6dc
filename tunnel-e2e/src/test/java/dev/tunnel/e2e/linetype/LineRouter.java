package dev.tunnel.e2e.linetype;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/**
 * Reads a public connection's first line (at most {@value #MAX_LINE} bytes, {@code AUTO_READ}
 * off, one read at a time), looks the route up and hands the socket, with the bytes behind the
 * line, to the route's session link. An unknown route or a line too long closes the connection.
 */
final class LineRouter extends ChannelInboundHandlerAdapter {
    static final int MAX_LINE = 128;

    private final Function<String, LineServerType.Route> routes;
    private ByteBuf head;

    LineRouter(Function<String, LineServerType.Route> routes) {
        this.routes = routes;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        head = ctx.alloc().buffer(MAX_LINE);
        ctx.read();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (head == null) {
            in.release();
            return;
        }
        head.writeBytes(in, Math.min(in.readableBytes(), head.writableBytes()));
        int eol = head.indexOf(head.readerIndex(), head.writerIndex(), (byte) '\n');
        if (eol < 0) {
            in.release();
            if (!head.isWritable()) {
                ctx.close();
            }
            return;
        }
        String route = head.toString(head.readerIndex(), eol - head.readerIndex(), StandardCharsets.US_ASCII);
        ByteBuf rest = ctx.alloc().buffer(head.writerIndex() - eol - 1 + in.readableBytes());
        rest.writeBytes(head, eol + 1, head.writerIndex() - eol - 1).writeBytes(in);
        in.release();
        head.release();
        head = null;
        LineServerType.Route target = routes.apply(route);
        if (target == null) {
            rest.release();
            ctx.close();
            return;
        }
        ctx.pipeline().remove(this);
        target.link().carry(ctx.channel(), rest, target.proxy());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (head != null) {
            ctx.read();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        ReferenceCountUtil.safeRelease(head);
        head = null;
    }
}
