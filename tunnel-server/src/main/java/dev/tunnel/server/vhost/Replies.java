package dev.tunnel.server.vhost;

import dev.tunnel.runtime.BurstLog;
import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The answers a vhost connection gives itself rather than an app's: its pages (404, 401, 400,
 * 408, 502, 504) encoded by Netty's encoder ({@link ResponseHeadEncoder}) and written to the visitor,
 * with the gateway errors counted and logged once per burst with the proxy; the closes that
 * wait for what was written before them; and the close of a connection that sent no head in time.
 *
 * <p>Invariant: a close asked for here first stops the connection's handling ({@code stop}:
 * nothing read afterwards is handled, no timeout runs), so the page or the bytes before it are
 * the last the visitor gets.
 *
 * <p>Threading: the connection's event loop.
 */
final class Replies {
    private static final Logger log = LoggerFactory.getLogger(HttpVhostHandler.class);
    private static final BurstLog GATEWAY_LOG = new BurstLog(log);

    private final ChannelHandlerContext ctx;
    private final VhostSettings vhost;
    private final Runnable stop;
    private ResponseHeadEncoder encoder;

    /** @param stop stops the connection's handling before it closes (the vhost handler's) */
    Replies(ChannelHandlerContext ctx, VhostSettings vhost, Runnable stop) {
        this.ctx = ctx;
        this.vhost = vhost;
        this.stop = stop;
    }

    /** Writes {@code page} (ownership passes) and flushes; the connection stays open. */
    ChannelFuture send(FullHttpResponse page) {
        if (encoder == null) {
            encoder = new ResponseHeadEncoder();
        }
        return ctx.writeAndFlush(encoder.encodePage(ctx, page));
    }

    /** Stops the connection's handling, writes {@code page} with {@code Connection: close}, then closes. */
    void sendAndClose(FullHttpResponse page) {
        stop.run();
        page.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        send(page).addListener(ChannelFutureListener.CLOSE);
    }

    /** 502, then close: the request's proxy could not be reached, or failed before answering. */
    void badGateway(Entry<HttpRoute> route, String why) {
        vhost.counters().badGateway.incrementAndGet();
        GATEWAY_LOG.warn("{} 502 for {}: {}", ctx.channel(), HttpRoute.describe(route), why);
        sendAndClose(vhost.pages().badGateway(ctx.alloc()));
    }

    /** 504, then close: the app did not start its response within {@code vhostHTTPTimeout}. */
    void gatewayTimeout(Entry<HttpRoute> route) {
        vhost.counters().gatewayTimeout.incrementAndGet();
        GATEWAY_LOG.warn("{} 504 for {}: no response within {} s (vhostHTTPTimeout)", ctx.channel(),
                HttpRoute.describe(route), vhost.responseTimeoutSeconds());
        sendAndClose(vhost.pages().gatewayTimeout(ctx.alloc()));
    }

    /**
     * 400 for a request body that cannot be read: a malformed chunk, or cut short by the visitor's
     * FIN. Not counted when the visitor closed altogether (an upload it gave up on).
     */
    FullHttpResponse badBody(Throwable cause) {
        if (ctx.channel().isActive()) {
            vhost.counters().badRequests.incrementAndGet();
            log.debug("{} bad request body (400): {}", ctx.channel(), cause.toString());
        }
        return ErrorPages.badRequest(ctx.alloc(), HttpResponseStatus.BAD_REQUEST,
                "The request body could not be read: it is malformed, or ended before its announced end.");
    }

    /** 408 for a request body of which no byte came within {@code vhostHTTPBodyTimeout}. */
    FullHttpResponse bodyTimedOut() {
        vhost.counters().slowBodies.incrementAndGet();
        log.debug("{} closing: no byte of the request body within {} s (vhostHTTPBodyTimeout)", ctx.channel(),
                vhost.bodyTimeoutSeconds());
        return ErrorPages.badRequest(ctx.alloc(), HttpResponseStatus.REQUEST_TIMEOUT,
                "The request body stopped arriving before its end.");
    }

    /**
     * Closes a connection that sent no complete request head within its time (also how long a
     * keep-alive connection may idle between requests): counted and logged, no page.
     */
    void headTimedOut() {
        vhost.counters().slowHeads.incrementAndGet();
        log.debug("{} closing: no complete request head within {} s", ctx.channel(), vhost.headTimeoutSeconds());
        ctx.close();
    }

    /** Stops the connection's handling, and closes once everything written so far has gone out. */
    void closeAfterWrites() {
        stop.run();
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
}
