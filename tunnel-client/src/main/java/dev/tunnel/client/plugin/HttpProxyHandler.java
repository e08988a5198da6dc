package dev.tunnel.client.plugin;

import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.protocol.transport.Failures;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * frp's {@code http_proxy} plugin for one visitor connection: reads one request head, checks
 * {@code Proxy-Authorization}, connects where the request asks and then relays raw bytes.
 *
 * <ul>
 *   <li>{@code CONNECT host:port}: answers {@code 200 Connection established} once connected, then
 *       the connection is a byte tunnel (HTTPS, SSH, anything).</li>
 *   <li>{@code GET http://host[:port]/path} (any method, absolute URI): the head goes to the origin
 *       in origin form without the proxy's hop-by-hop headers and with {@code Connection: close};
 *       the body and the response then travel as raw bytes, and the connection ends with the
 *       response. One request per connection, so every request is checked and routed on its own.
 *       An {@code Upgrade} request (WebSocket) keeps its upgrade and stays open.</li>
 * </ul>
 *
 * <h3>Errors</h3>
 * A malformed head gets 400 (431 / 414 when too long), a request without credentials 407 with
 * {@code Proxy-Authenticate: Basic}, wrong credentials the same 407 after
 * {@value #WRONG_CREDENTIALS_DELAY_MILLIS} ms (as frp, to slow guessing), anything but CONNECT or
 * an absolute {@code http://} URI 400, a destination {@link Destinations} refuses (loopback, this
 * machine, ... unless {@code allowDestinations} lists it) 403 naming why, an unreachable target
 * 502 naming why. Each closes the connection.
 *
 * <h3>Flow control</h3>
 * The connection runs with {@code AUTO_READ} off: one read for the head, none while the target is
 * being dialed (bytes that came behind the head wait in the relay), and from the join on the
 * {@link PipeRelay}s read each side only while the other can take it.
 *
 * <p>Threading: one instance per connection, on its event loop.
 */
final class HttpProxyHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(HttpProxyHandler.class);
    static final String NAME = "httpProxy";
    static final long WRONG_CREDENTIALS_DELAY_MILLIS = 200;
    /** Request headers that concern only the hop to the proxy (RFC 9110 7.6.1, and the proxy's own). */
    private static final List<CharSequence> HOP_BY_HOP = List.of(HttpHeaderNames.PROXY_AUTHORIZATION,
            HttpHeaderNames.PROXY_AUTHENTICATE, "Proxy-Connection", HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.TE,
            HttpHeaderNames.TRAILER);

    private final BasicAuth auth;
    private final Destinations destinations;
    private final String codecName;
    /** Whether the request head arrived: until then every read that ends without one asks for another. */
    private boolean headSeen;

    /** @param auth null when the proxy is open (no httpUser/httpPassword) */
    HttpProxyHandler(BasicAuth auth, Destinations destinations, String codecName) {
        this.auth = auth;
        this.destinations = destinations;
        this.codecName = codecName;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.read();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof HttpRequest request)) {
            ReferenceCountUtil.release(msg); // the body of a request being refused
            return;
        }
        headSeen = true;
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            LOG.debug("{} bad proxy request: {}", ctx.channel(), cause.toString());
            refuse(ctx, status(cause), "malformed request: " + cause.getMessage());
            return;
        }
        if (auth != null && !auth.accepts(request.headers().get(HttpHeaderNames.PROXY_AUTHORIZATION))) {
            FullHttpResponse response = SimpleResponses.status(ctx, HttpResponseStatus.PROXY_AUTHENTICATION_REQUIRED, false);
            response.headers().set(HttpHeaderNames.PROXY_AUTHENTICATE, BasicAuth.CHALLENGE)
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            long delay = request.headers().contains(HttpHeaderNames.PROXY_AUTHORIZATION) ? WRONG_CREDENTIALS_DELAY_MILLIS : 0;
            ctx.executor().schedule(() -> ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE),
                    delay, TimeUnit.MILLISECONDS);
            return;
        }
        boolean connect = HttpMethod.CONNECT.equals(request.method());
        URI target = target(request.uri(), connect);
        if (target == null) {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, connect
                    ? "CONNECT needs host:port, got \"" + request.uri() + "\""
                    : "this is an HTTP proxy: send CONNECT host:port or an absolute http:// URI, got \"" + request.uri() + "\"");
            return;
        }
        HeadDeadline.done(ctx);
        // From here on the visitor's bytes are raw: the relay holds whatever came behind the head.
        PipeRelay front = PipeRelay.replace(ctx.channel(), NAME);
        ctx.pipeline().remove(codecName);
        int port = target.getPort() > 0 ? target.getPort() : 80;
        String host = target.getHost().startsWith("[") ? target.getHost().substring(1, target.getHost().length() - 1)
                : target.getHost();
        HttpRequest head = connect ? null : originRequest(request, target);
        Outbound.open(ctx.channel().eventLoop(), host, port, destinations, ctx.channel() + " http_proxy").addListener(f -> {
            if (!f.isSuccess()) {
                if (f.cause() instanceof Outbound.RefusedDestination refused) {
                    answerRaw(front.channel(), HttpResponseStatus.FORBIDDEN, "refused: " + refused.getMessage() + "\n");
                    return;
                }
                LOG.debug("{} proxy target {}:{} unreachable: {}", ctx.channel(), host, port, Failures.describe(f.cause()));
                answerRaw(front.channel(), HttpResponseStatus.BAD_GATEWAY,
                        "cannot reach " + host + ":" + port + ": " + Failures.describe(f.cause()) + "\n");
                return;
            }
            Outbound.Dial dial = (Outbound.Dial) f.getNow();
            if (connect) {
                front.channel().writeAndFlush(ByteBufUtil.writeAscii(front.channel().alloc(),
                        "HTTP/1.1 200 Connection established\r\n\r\n"));
            } else {
                dial.channel().pipeline().addFirst("headEncoder", new HttpRequestEncoder());
                dial.channel().write(head);
                dial.channel().pipeline().remove("headEncoder");
            }
            PipeRelay.join(front, dial.relay());
        });
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!headSeen) {
            ctx.read();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("{} http_proxy connection failed: {}", ctx.channel(), Failures.describe(cause));
        ctx.close();
    }

    /** Writes a whole response on {@code front}, whose codec is gone already, and closes it. */
    private static void answerRaw(Channel front, HttpResponseStatus status, String body) {
        front.writeAndFlush(ByteBufUtil.writeAscii(front.alloc(), "HTTP/1.1 " + status
                + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\nConnection: close\r\n\r\n"))
                .addListener(w -> front.writeAndFlush(ByteBufUtil.writeUtf8(front.alloc(), body))
                        .addListener(ChannelFutureListener.CLOSE));
    }

    /** Where the request goes: {@code host:port} of a CONNECT, or the absolute {@code http://} URI; null if neither. */
    static URI target(String uri, boolean connect) {
        try {
            if (connect) {
                URI parsed = new URI("//" + uri);
                return parsed.getHost() != null && parsed.getPort() > 0 && parsed.getRawUserInfo() == null
                        && parsed.getRawPath().isEmpty() && parsed.getRawQuery() == null ? parsed : null;
            }
            URI parsed = new URI(uri);
            return "http".equalsIgnoreCase(parsed.getScheme()) && parsed.getHost() != null && parsed.getRawUserInfo() == null
                    ? parsed : null;
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** The head as the origin sees it: origin-form URI, the proxy's hop-by-hop headers gone, one request per connection. */
    static HttpRequest originRequest(HttpRequest request, URI target) {
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        if (target.getRawQuery() != null) {
            path += "?" + target.getRawQuery();
        }
        HttpRequest out = new DefaultHttpRequest(request.protocolVersion(), request.method(), path);
        HttpHeaders headers = out.headers().set(request.headers());
        boolean upgrade = headers.contains(HttpHeaderNames.UPGRADE)
                && headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true);
        for (String listed : headers.getAll(HttpHeaderNames.CONNECTION)) {
            for (String name : listed.split(",")) {
                if (!name.isBlank() && !(upgrade && name.trim().equalsIgnoreCase("upgrade"))) {
                    headers.remove(name.trim());
                }
            }
        }
        HOP_BY_HOP.forEach(headers::remove);
        if (upgrade) {
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        } else {
            headers.remove(HttpHeaderNames.UPGRADE);
            headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        if (!headers.contains(HttpHeaderNames.HOST)) {
            headers.set(HttpHeaderNames.HOST, target.getRawAuthority());
        }
        return out;
    }

    /** 414 / 431 for a request line / headers over the codec's limits, else 400. */
    static HttpResponseStatus status(Throwable cause) {
        if (cause instanceof TooLongHttpLineException) {
            return HttpResponseStatus.REQUEST_URI_TOO_LONG;
        }
        return cause instanceof TooLongHttpHeaderException ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                : HttpResponseStatus.BAD_REQUEST;
    }

    private static void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String why) {
        FullHttpResponse response = SimpleResponses.status(ctx, status, false);
        response.content().clear().writeCharSequence(status + ": " + why + "\n", StandardCharsets.UTF_8);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
