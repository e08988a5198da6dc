package dev.tunnel.client.plugin;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a plugin connection whose visitor has not finished its opening exchange (an HTTP proxy
 * request head, a SOCKS5 greeting, authentication and command) within the deadline: a client
 * that trickles a head byte by byte holds a connection, a tunnel stream and a parser for that
 * long at most. The plugin handler calls {@link #done} once the exchange is over. frp's plugins
 * allow 60 seconds for a head.
 *
 * <p>Threading: the channel's event loop.
 */
final class HeadDeadline extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(HeadDeadline.class);
    static final String NAME = "headDeadline";
    /** frp's {@code ReadHeaderTimeout} for its HTTP plugins. */
    static final long DEFAULT_MILLIS = 60_000;

    private final long millis;
    private Future<?> timer;

    HeadDeadline(long millis) {
        this.millis = millis;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer = ctx.executor().schedule(() -> {
            LOG.debug("{} no complete request within {} ms: closing", ctx.channel(), millis);
            ctx.channel().close();
        }, millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        timer.cancel(false);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        timer.cancel(false);
        ctx.fireChannelInactive();
    }

    /** The opening exchange on {@code ctx}'s channel is over: the deadline no longer applies. */
    static void done(ChannelHandlerContext ctx) {
        if (ctx.pipeline().get(NAME) != null) {
            ctx.pipeline().remove(NAME);
        }
    }
}
