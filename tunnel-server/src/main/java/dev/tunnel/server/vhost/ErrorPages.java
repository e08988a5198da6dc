package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/**
 * The pages the vhost answers itself: 404 for a host no proxy serves ({@code custom404Page}
 * when set), 401 for missing or wrong {@code httpUser}/{@code httpPassword}, 400/414/431 for bad
 * requests, 502 when the local app cannot be reached, 504 when it does not answer within
 * {@code vhostHTTPTimeout}. Every page is short HTML that says what happened and who can fix it.
 */
public final class ErrorPages {
    private final byte[] notFound;

    /** @param custom404 the bytes of {@code custom404Page}, or null for the built-in page */
    public ErrorPages(byte[] custom404) {
        this.notFound = custom404 != null ? custom404.clone() : html("404 Not Found",
                "No web site is served for this address here. If you run it, check that its tunnel client is "
                        + "connected and that the proxy's customDomains or subdomain names this host.");
    }

    public FullHttpResponse notFound(ByteBufAllocator alloc) {
        return page(alloc, HttpResponseStatus.NOT_FOUND, notFound);
    }

    public FullHttpResponse unauthorized(ByteBufAllocator alloc) {
        FullHttpResponse r = page(alloc, HttpResponseStatus.UNAUTHORIZED, html("401 Unauthorized",
                "This site needs a user name and password."));
        r.headers().set("WWW-Authenticate", "Basic realm=\"Restricted\"");
        return r;
    }

    public FullHttpResponse badGateway(ByteBufAllocator alloc) {
        return page(alloc, HttpResponseStatus.BAD_GATEWAY, html("502 Bad Gateway",
                "The site's application did not answer: it may be stopped at home, or its tunnel client is "
                        + "offline."));
    }

    public FullHttpResponse gatewayTimeout(ByteBufAllocator alloc) {
        return page(alloc, HttpResponseStatus.GATEWAY_TIMEOUT, html("504 Gateway Timeout",
                "The site's application did not start its answer in time."));
    }

    /** 400, 414 or 431 for a request that cannot be routed; the connection closes after it. */
    public static FullHttpResponse badRequest(ByteBufAllocator alloc, HttpResponseStatus status, String why) {
        FullHttpResponse r = page(alloc, status, html(status.toString(), why));
        r.headers().set("Connection", HttpHeaderValues.CLOSE);
        return r;
    }

    private static FullHttpResponse page(ByteBufAllocator alloc, HttpResponseStatus status, byte[] body) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                alloc.buffer(body.length).writeBytes(body));
        r.headers().set("Content-Type", "text/html; charset=utf-8");
        r.headers().setInt("Content-Length", body.length);
        r.headers().set("Cache-Control", "no-store");
        return r;
    }

    private static byte[] html(String title, String text) {
        String escaped = escape(text);
        return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + escape(title)
                + "</title></head>\n<body><h1>" + escape(title) + "</h1>\n<p>" + escaped
                + "</p>\n<hr><p>tunnel</p></body></html>\n").getBytes(StandardCharsets.UTF_8);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
