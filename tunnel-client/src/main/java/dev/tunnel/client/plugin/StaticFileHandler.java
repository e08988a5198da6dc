package dev.tunnel.client.plugin;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers each HTTP request with a file, a directory page or an error; request bodies are
 * dropped as they arrive (the parent class releases every message).
 *
 * <h3>Order of checks</h3>
 * Malformed request (400, then close), Basic auth (401), method (405 with Allow), path (403 for
 * traversal, 404 for anything missing or outside the root), then directory or file.
 *
 * <h3>Flow control</h3>
 * The connection runs with {@code AUTO_READ=false} behind a {@code FlowControlHandler}, and this
 * handler asks for one message at a time: body parts of the current request right away (to
 * discard them), the next request only once the current response has been written out. So a
 * client that pipelines requests or reads slowly holds at most one open file and one response.
 *
 * <h3>Threading</h3>
 * One instance per connection, used only on that channel's event loop.
 */
final class StaticFileHandler extends SimpleChannelInboundHandler<HttpObject> {

    private static final Logger LOG = LoggerFactory.getLogger(StaticFileHandler.class);

    private final RequestPaths paths;
    private final BasicAuth auth;
    /** Completes when the current request's response is fully written; null before the first. */
    private ChannelFuture response;
    /** Whether a read() was asked for and no message has arrived since. */
    private boolean wantRead;

    StaticFileHandler(RequestPaths paths, BasicAuth auth) {
        this.paths = paths;
        this.auth = auth;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        readNext(ctx);
        ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) throws Exception {
        wantRead = false;
        if (msg instanceof HttpRequest request) {
            if (request.decoderResult().isFailure()) {
                LOG.debug("{} bad request: {}", ctx.channel(), request.decoderResult().cause().toString());
                ctx.writeAndFlush(SimpleResponses.status(ctx, HttpResponseStatus.BAD_REQUEST, false))
                        .addListener(ChannelFutureListener.CLOSE);
                return;
            }
            response = answer(ctx, request);
        }
        // Body content is dropped (the parent class releases it); the request ends at LastHttpContent.
        if (msg instanceof LastHttpContent && response != null) {
            response.addListener(f -> readNext(ctx));
        } else {
            readNext(ctx);
        }
    }

    /** Asks for the next message; {@link #channelReadComplete} repeats the ask until one arrives. */
    private void readNext(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            wantRead = true;
            ctx.read();
        }
    }

    /**
     * A read cycle can end without a whole message (a request split over TCP segments), and
     * FlowControlHandler forgets unsatisfied reads at that point, so ask again while still waiting.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (wantRead && ctx.channel().isActive()) {
            ctx.read();
        }
        ctx.fireChannelReadComplete();
    }

    private ChannelFuture answer(ChannelHandlerContext ctx, HttpRequest request) {
        HttpMethod method = request.method();
        boolean head = HttpMethod.HEAD.equals(method);
        if (auth != null && !auth.accepts(request.headers().get(HttpHeaderNames.AUTHORIZATION))) {
            FullHttpResponse response = SimpleResponses.status(ctx, HttpResponseStatus.UNAUTHORIZED, head);
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, BasicAuth.CHALLENGE);
            return send(ctx, request, response);
        }
        if (!head && !HttpMethod.GET.equals(method)) {
            FullHttpResponse response = SimpleResponses.status(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, false);
            response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            return send(ctx, request, response);
        }
        RequestPaths.Lookup lookup = paths.resolve(request.uri());
        if (lookup.file() == null) {
            return send(ctx, request, SimpleResponses.status(ctx, lookup.status(), head));
        }
        return serve(ctx, request, lookup, head);
    }

    private ChannelFuture serve(ChannelHandlerContext ctx, HttpRequest request, RequestPaths.Lookup lookup,
                                boolean head) {
        Path file = lookup.file();
        try {
            if (Files.isDirectory(file)) {
                if (!lookup.rawPath().endsWith("/")) {
                    return send(ctx, request, SimpleResponses.redirect(ctx, lookup.rawPath() + "/", head));
                }
                Path index = file.resolve("index.html");
                if (Files.isRegularFile(index)) {
                    return FileResponder.respond(ctx, request, index, head);
                }
                String html = DirectoryListing.render(file, lookup.rawPath(), !paths.isTop(file));
                return send(ctx, request, SimpleResponses.html(ctx, html, head));
            }
            if (Files.isRegularFile(file)) {
                return FileResponder.respond(ctx, request, file, head);
            }
            return send(ctx, request, SimpleResponses.status(ctx, HttpResponseStatus.NOT_FOUND, head));
        } catch (IOException | SecurityException e) {
            // Nothing has been written for this request when opening or listing fails.
            LOG.debug("{} cannot serve {}: {}", ctx.channel(), file, e.toString());
            return send(ctx, request, SimpleResponses.status(ctx, HttpResponseStatus.FORBIDDEN, head));
        }
    }

    private static ChannelFuture send(ChannelHandlerContext ctx, HttpRequest request, FullHttpResponse response) {
        if (response.status().code() >= 400) {
            LOG.debug("{} {} {} -> {}", ctx.channel(), request.method(), request.uri(), response.status());
        }
        return ctx.writeAndFlush(response); // HttpServerKeepAliveHandler sets Connection and closes when asked.
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("{} closing after error: {}", ctx.channel(), cause.toString());
        ctx.close();
    }
}
