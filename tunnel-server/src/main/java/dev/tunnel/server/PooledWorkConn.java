package dev.tunnel.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of an idle work connection in the pool, until {@code START_WORK_CONN}
 * replaces it with a pipe. The client must send nothing here: anything it sends closes the
 * connection (it cannot be told apart from the public connection's bytes later).
 */
final class PooledWorkConn extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(PooledWorkConn.class);

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
        log.warn("{} client sent {} on an idle work connection (expected nothing): closing", ctx.channel(),
                msg.getClass().getSimpleName());
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        log.debug("{} idle work connection closed: {}", ctx.channel(), root.toString());
        ctx.close();
    }
}
