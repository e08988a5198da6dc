package dev.tunnel.server.proxy.tcpmux;

import dev.tunnel.runtime.BurstLog;
import dev.tunnel.server.vhost.BasicCredentials;
import dev.tunnel.server.vhost.HeldBytes;
import dev.tunnel.server.vhost.HostNames;
import dev.tunnel.server.vhost.HttpRoute;
import dev.tunnel.server.vhost.RouteTable;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes one connection on {@code tcpmuxHTTPConnectPort}, as frp's {@code httpconnect}
 * multiplexer does: reads {@code CONNECT host:port}, finds the tcpmux proxy serving {@code host}
 * (and, with {@code routeByHTTPUser}, the user of {@code Proxy-Authorization}), checks that
 * proxy's {@code httpUser}/{@code httpPassword}, answers {@code 200 OK} and hands the connection,
 * now raw bytes, to the proxy's session. With {@code tcpmuxPassthrough} no answer is sent and the
 * CONNECT head goes to the local app first.
 *
 * <p>Refusals, each closing the connection: a malformed head 400, another method 405, no proxy
 * for the host 404, missing or wrong credentials 407 (logged once per burst).
 *
 * <p>Threading: the connection's loop until it is handed on; {@code AUTO_READ} is off, one read
 * at a time until the head is complete, none after, so nothing arrives between the hand-off and
 * the relay. A head not complete within the deadline closes the connection.
 */
final class HttpConnectRouter extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(HttpConnectRouter.class);
    private static final BurstLog REFUSED_LOG = new BurstLog(log);

    private final RouteTable<HttpRoute> routes;
    private final boolean passthrough;
    private final long headTimeoutMillis;
    private final String codecName;
    private Future<?> deadline;
    private boolean seen;

    HttpConnectRouter(RouteTable<HttpRoute> routes, boolean passthrough, long headTimeoutMillis, String codecName) {
        this.routes = routes;
        this.passthrough = passthrough;
        this.headTimeoutMillis = headTimeoutMillis;
        this.codecName = codecName;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        deadline = ctx.executor().schedule(() -> {
            log.debug("{} no CONNECT head within {} ms: closing", ctx.channel(), headTimeoutMillis);
            ctx.close();
        }, headTimeoutMillis, TimeUnit.MILLISECONDS);
        ctx.read();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (deadline != null) {
            deadline.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!seen) {
            ctx.read();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (seen || !(msg instanceof HttpRequest request)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        seen = true;
        deadline.cancel(false);
        if (request.decoderResult().isFailure()) {
            refuse(ctx, HttpResponseStatus.BAD_REQUEST, "malformed request: " + request.decoderResult().cause().getMessage());
            return;
        }
        if (!HttpMethod.CONNECT.equals(request.method())) {
            refuse(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "this port takes CONNECT host:port only");
            return;
        }
        String host = HostNames.fromHostHeader(request.uri());
        String authorization = request.headers().get(HttpHeaderNames.PROXY_AUTHORIZATION);
        RouteTable.Entry<HttpRoute> route = host == null ? null
                : routes.find(host, "", BasicCredentials.userOf(authorization));
        if (route == null) {
            REFUSED_LOG.warn("{} tcpmux: no proxy serves [{}]", ctx.channel(), host);
            refuse(ctx, HttpResponseStatus.NOT_FOUND, "no proxy serves " + host);
            return;
        }
        HttpRoute target = route.target();
        if (target.needsAuth()) {
            BasicCredentials given = BasicCredentials.parse(authorization);
            if (given == null || !given.matches(target.httpUser(), target.httpPassword())) {
                REFUSED_LOG.warn("{} tcpmux: {} credentials for proxy [{}]", ctx.channel(),
                        given == null ? "no" : "wrong", route.owner());
                refuse(ctx, HttpResponseStatus.PROXY_AUTHENTICATION_REQUIRED, "credentials required");
                return;
            }
        }
        Channel ch = ctx.channel();
        HeldBytes holder = new HeldBytes(ch, passthrough ? encode(request) : null);
        // Bytes the codec holds behind the head reach the holder when the codec leaves.
        ctx.pipeline().replace(this, "tcpmuxBytes", holder);
        ch.pipeline().remove(codecName);
        Runnable handOn = () -> {
            if (holder.carryTo(target.target())) {
                log.debug("{} tcpmux CONNECT [{}] -> proxy [{}]", ch, host, route.owner());
            }
        };
        if (passthrough) {
            ch.eventLoop().execute(handOn);
        } else {
            ch.writeAndFlush(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\n\r\n", java.nio.charset.StandardCharsets.US_ASCII))
                    .addListener(f -> {
                        if (f.isSuccess()) {
                            handOn.run();
                        } else {
                            holder.drop();
                        }
                    });
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("{} tcpmux connection failed: {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    /** The CONNECT head as it came (re-encoded), for tcpmuxPassthrough. */
    private static ByteBuf encode(HttpRequest request) {
        EmbeddedChannel encoder = new EmbeddedChannel(new HttpRequestEncoder());
        encoder.writeOutbound(request, LastHttpContent.EMPTY_LAST_CONTENT);
        CompositeByteBuf out = Unpooled.compositeBuffer();
        ByteBuf part;
        while ((part = encoder.readOutbound()) != null) {
            out.addComponent(true, part);
        }
        encoder.finishAndReleaseAll();
        return out;
    }

    /** Answers through the codec (still in the pipeline) and closes. */
    private static void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String why) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                ByteBufUtil.writeUtf8(ctx.alloc(), status + ": " + why + "\n"));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        if (status.equals(HttpResponseStatus.PROXY_AUTHENTICATION_REQUIRED)) {
            response.headers().set(HttpHeaderNames.PROXY_AUTHENTICATE, "Basic realm=\"tunnel\"");
        }
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
