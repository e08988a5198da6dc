package dev.tunnel.client.plugin;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/** Builds small in-memory responses: errors, redirects and HTML pages. Stateless; call on the event loop. */
final class SimpleResponses {

    private SimpleResponses() {
    }

    /** A {@code text/plain} response whose body is the status line, e.g. {@code 404 Not Found}. */
    static FullHttpResponse status(ChannelHandlerContext ctx, HttpResponseStatus status, boolean head) {
        return text(ctx, status, "text/plain; charset=utf-8", status + "\n", head);
    }

    /** A 301 to {@code location}. */
    static FullHttpResponse redirect(ChannelHandlerContext ctx, String location, boolean head) {
        FullHttpResponse response = status(ctx, HttpResponseStatus.MOVED_PERMANENTLY, head);
        response.headers().set(HttpHeaderNames.LOCATION, location);
        return response;
    }

    /** A 200 {@code text/html} page. */
    static FullHttpResponse html(ChannelHandlerContext ctx, String html, boolean head) {
        return text(ctx, HttpResponseStatus.OK, "text/html; charset=utf-8", html, head);
    }

    /**
     * A response with {@code body} as UTF-8. For HEAD the body is left out but Content-Length still
     * tells its size, as RFC 9110 asks.
     */
    private static FullHttpResponse text(ChannelHandlerContext ctx, HttpResponseStatus status, String contentType,
                                         String body, boolean head) {
        ByteBuf content;
        int length;
        if (head) {
            content = Unpooled.EMPTY_BUFFER;
            length = ByteBufUtil.utf8Bytes(body);
        } else {
            content = ByteBufUtil.writeUtf8(ctx.alloc(), body);
            length = content.readableBytes();
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, length)
                .set("X-Content-Type-Options", "nosniff");
        return response;
    }
}
