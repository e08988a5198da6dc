package dev.tunnel.server.vhost;

import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;

/**
 * Ends a vhost connection's exchange that cannot complete: the connection to the app is reset
 * (what it got of the request is never taken for a whole one), and the visitor gets an error
 * page and the close, or, once the app's response has begun, only the close (a page cannot go
 * in the middle of a response).
 *
 * <p>Threading: the connection's event loop.
 */
final class ExchangeAbort {
    private final ChannelHandlerContext ctx;
    private final Exchange exchange;
    private final Upstreams upstreams;
    private final Replies replies;
    private final Runnable stop;

    /** @param stop stops the connection's handling before it closes (the vhost handler's) */
    ExchangeAbort(ChannelHandlerContext ctx, Exchange exchange, Upstreams upstreams, Replies replies, Runnable stop) {
        this.ctx = ctx;
        this.exchange = exchange;
        this.upstreams = upstreams;
        this.replies = replies;
        this.stop = stop;
    }

    /** The app failed before or while answering (it says {@code why}): 502, or only the close. */
    void badGateway(Entry<HttpRoute> route, String why) {
        upstreams.end(true);
        if (exchange.responseStarted) {
            ctx.close();
        } else {
            replies.badGateway(route, why);
        }
    }

    /** The app did not start its response within {@code vhostHTTPTimeout}: 504. */
    void gatewayTimeout(Entry<HttpRoute> route) {
        upstreams.end(true);
        replies.gatewayTimeout(route);
    }

    /**
     * The request body will not complete (malformed, cut short, or stalled): the visitor's
     * connection closes after {@code page} (ownership passes), or without it once its response
     * has begun.
     */
    void badBody(FullHttpResponse page) {
        upstreams.end(true);
        if (exchange.responseStarted) {
            page.release();
            stop.run();
            ctx.close();
        } else {
            replies.sendAndClose(page);
        }
    }
}
