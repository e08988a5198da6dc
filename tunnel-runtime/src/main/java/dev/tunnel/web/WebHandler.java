package dev.tunnel.web;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.ReadTimeoutException;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one HTTP request at a time on a connection: checks the credentials (except on open
 * routes such as {@code /healthz}), refuses cross-site state changes ({@link CrossSiteGuard}),
 * finds the route and writes what its endpoint returns. Unknown paths get 404 only after the
 * credentials are checked, so a caller without them learns nothing about the routes.
 *
 * <p>Every request gets an answer: an endpoint that throws, even an {@link Error}, gives 500 and
 * one ERROR line naming the caller, the route and the exception.
 *
 * <p>Threading: runs on the connection's event loop; state-changing endpoints run on
 * {@code blocking} and their answer is written from there (Netty hands the write to the loop).
 */
final class WebHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(WebHandler.class);

    private final Routes routes;
    private final BasicAuth auth;
    private final Executor blocking;

    /** @param auth null when no credentials are configured */
    WebHandler(Routes routes, BasicAuth auth, Executor blocking) {
        this.routes = routes;
        this.auth = auth;
        this.blocking = blocking;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        try {
            answer(ctx, req);
        } catch (RuntimeException | Error e) {
            logFailure(ctx, req.method(), req.uri(), e);
            send(ctx, internalError(e), false);
        }
    }

    private void answer(ChannelHandlerContext ctx, FullHttpRequest req) {
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        if (req.decoderResult().isFailure()) {
            send(ctx, WebResponse.text(HttpResponseStatus.BAD_REQUEST, "malformed request"), false);
            return;
        }
        QueryStringDecoder uri = new QueryStringDecoder(req.uri());
        String rawPath = uri.rawPath();
        if (auth == null) {
            String refused = CrossSiteGuard.refuseHost(req.headers());
            if (refused != null) {
                send(ctx, WebResponse.text(HttpResponseStatus.FORBIDDEN, refused), keepAlive);
                return;
            }
        } else if (!routes.isOpen(rawPath) && !auth.accepts(req.headers().get(HttpHeaderNames.AUTHORIZATION))) {
            WebResponse unauthorized = new WebResponse(HttpResponseStatus.UNAUTHORIZED, WebResponse.TEXT,
                    "unauthorized\n".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    Map.of("WWW-Authenticate", "Basic realm=\"tunnel\", charset=\"UTF-8\""));
            send(ctx, unauthorized, keepAlive);
            return;
        }
        HttpMethod method = req.method().equals(HttpMethod.HEAD) ? HttpMethod.GET : req.method();
        Routes.Match match = routes.match(method, rawPath);
        if (match.route() == null) {
            if (match.allowed().isEmpty()) {
                send(ctx, WebResponse.text(HttpResponseStatus.NOT_FOUND, "not found: " + rawPath), keepAlive);
            } else {
                String allow = match.allowed().stream().map(HttpMethod::name).collect(Collectors.joining(", "));
                send(ctx, new WebResponse(HttpResponseStatus.METHOD_NOT_ALLOWED, WebResponse.TEXT,
                        ("method " + req.method() + " not allowed (allowed: " + allow + ")\n")
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8), Map.of("Allow", allow)), keepAlive);
            }
            return;
        }
        WebRequest request = new WebRequest(req.method(), rawPath, match.params(), uri.parameters(),
                req.headers().copy(), ByteBufUtil.getBytes(req.content()));
        if (!match.route().changesState()) {
            send(ctx, call(ctx, match.route().endpoint(), request), keepAlive);
            return;
        }
        String refused = CrossSiteGuard.refuseChange(req.headers());
        if (refused != null) {
            log.warn("{} {} {}: {}", ctx.channel().remoteAddress(), req.method(), rawPath, refused);
            send(ctx, WebResponse.text(HttpResponseStatus.FORBIDDEN, refused), keepAlive);
            return;
        }
        ctx.channel().config().setAutoRead(false); // one request at a time: the next waits for this answer
        try {
            blocking.execute(() -> {
                WebResponse response = call(ctx, match.route().endpoint(), request);
                ctx.executor().execute(() -> {
                    send(ctx, response, keepAlive);
                    ctx.channel().config().setAutoRead(true);
                });
            });
        } catch (RejectedExecutionException e) {
            send(ctx, WebResponse.text(HttpResponseStatus.SERVICE_UNAVAILABLE, "shutting down"), false);
        }
    }

    /**
     * Runs the endpoint; whatever it throws (an Error too: a call that dies must still be
     * answered, or the connection waits for ever with reading off) becomes a 500 and one log line.
     */
    private static WebResponse call(ChannelHandlerContext ctx, Endpoint endpoint, WebRequest request) {
        try {
            return endpoint.handle(request);
        } catch (Exception | Error e) {
            logFailure(ctx, request.method(), request.path(), e);
            return internalError(e);
        }
    }

    /** One line, at ERROR: a route that fails is a bug to report; the frame it failed in says where. */
    private static void logFailure(ChannelHandlerContext ctx, HttpMethod method, String path, Throwable e) {
        StackTraceElement[] trace = e.getStackTrace();
        log.error("{} {} {} failed: {}{}", ctx.channel().remoteAddress(), method, path, e,
                trace.length == 0 ? "" : " (at " + trace[0] + ")");
    }

    private static WebResponse internalError(Throwable e) {
        return WebResponse.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error: " + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }

    private static void send(ChannelHandlerContext ctx, WebResponse response, boolean keepAlive) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, response.status(),
                Unpooled.wrappedBuffer(response.body()));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, response.contentType())
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.body().length)
                .set("X-Content-Type-Options", "nosniff")
                .set("X-Frame-Options", "DENY")
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        response.headers().forEach(res.headers()::set);
        if (keepAlive) {
            res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(res);
        } else {
            res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!(cause instanceof ReadTimeoutException)) {
            log.debug("{} web connection closed: {}", ctx.channel(), cause.toString());
        }
        ctx.close();
    }
}
