package dev.tunnel.client.plugin;

import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.protocol.transport.Failures;
import dev.tunnel.client.proxy.tcp.TcpDialer;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.runtime.BurstLog;
import dev.tunnel.tls.TlsContexts;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One visitor connection of an HTTP bridge plugin ({@code http2http} and kin, {@link HttpBridge}):
 * decoded requests are rewritten and forwarded, as they stream in, over one connection to
 * {@code localAddr} opened at the first request; responses come back the same way, in order (so
 * pipelining and keep-alive work as the two ends negotiate them). A {@code 101 Switching
 * Protocols} answer (WebSocket) turns both connections into a raw {@link PipeRelay} pair.
 *
 * <h3>Flow control</h3>
 * Both connections run with {@code AUTO_READ} off. Each side is read again only while the other
 * is writable; nothing is read from the visitor while {@code localAddr} is being dialed (what the
 * first read brought waits in a queue of one read's worth). So buffering per connection is one
 * read plus the socket watermarks, whatever the speed of either end.
 *
 * <h3>Errors</h3>
 * A malformed head gets 400 (414 / 431 when too long) and the connection closes, as does a
 * malformed chunk of a body (the connection to the app closes before any last chunk); an unreachable {@code localAddr} 502 (logged
 * once per burst); when either connection closes, the other closes once its writes are out.
 *
 * <p>Threading: the upstream connection is registered on the visitor connection's event loop, so
 * this handler and its {@link Upstream} run on one thread.
 */
final class HttpBridgeHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(HttpBridgeHandler.class);
    static final String NAME = "httpBridge";
    static final String UPSTREAM_CODEC = "codec";
    static final String UPSTREAM = "upstream";
    /** The local app is trusted more than visitors: its status line and headers may be larger. */
    static final int MAX_RESPONSE_LINE = 8192;
    static final int MAX_RESPONSE_HEADERS = 65536;

    private final HttpBridge bridge;
    private final BurstLog unreachable;
    private final String codecName;
    private ChannelHandlerContext ctx;
    private Channel upstream;
    private boolean connected;
    private final ArrayDeque<Object> pending = new ArrayDeque<>();

    HttpBridgeHandler(HttpBridge bridge, BurstLog unreachable, String codecName) {
        this.bridge = bridge;
        this.unreachable = unreachable;
        this.codecName = codecName;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.read();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            if (request.decoderResult().isFailure()) {
                ReferenceCountUtil.release(msg);
                LOG.debug("{} bad request: {}", ctx.channel(), request.decoderResult().cause().toString());
                fail(HttpProxyHandler.status(request.decoderResult().cause()), "malformed request: " + request.decoderResult().cause().getMessage());
                return;
            }
            HeadDeadline.done(ctx);
            bridge.rewrite(request);
            if (upstream == null) {
                dial();
            }
        } else if (msg instanceof HttpContent content && content.decoderResult().isFailure()) {
            ReferenceCountUtil.release(msg); // a malformed chunk: encoded, it would reach the app as the last one
            LOG.debug("{} bad request body: {}", ctx.channel(), content.decoderResult().cause().toString());
            if (upstream != null) {
                upstream.close(); // the app sees its body cut short, never ended
            }
            fail(HttpResponseStatus.BAD_REQUEST, "malformed request body: " + content.decoderResult().cause().getMessage());
            return;
        }
        if (connected) {
            upstream.write(msg, upstream.voidPromise());
        } else {
            pending.add(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (connected) {
            upstream.flush();
            if (upstream.isWritable()) {
                ctx.read();
            }
        } else if (upstream == null) {
            ctx.read(); // the first head is not complete yet
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (connected && ctx.channel().isWritable()) {
            upstream.read();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releasePending();
        if (upstream != null) {
            upstream.close();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("{} http bridge connection failed: {}", ctx.channel(), Failures.describe(cause));
        ctx.close();
    }

    private void dial() {
        Channel visitor = ctx.channel();
        // Half-closure stays off: a response that ends with the connection (HTTP/1.0 style) must
        // reach channelInactive, which ends the visitor's connection after the last bytes.
        ChannelFuture connecting = new Bootstrap()
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                .group(visitor.eventLoop())
                .channel(Transports.socketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, TcpDialer.CONNECT_TIMEOUT_MILLIS)
                .resolver(Outbound.RESOLVER)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (bridge.upstreamTls() != null) {
                            ch.pipeline().addLast("tls", TlsContexts.newClientHandler(bridge.upstreamTls(), ch.alloc(),
                                    bridge.localAddr().getHostString(), bridge.localAddr().getPort(), false));
                        }
                        ch.pipeline().addLast(UPSTREAM_CODEC, new HttpClientCodec(MAX_RESPONSE_LINE, MAX_RESPONSE_HEADERS,
                                StaticFileServerInitializer.MAX_CHUNK_SIZE));
                        ch.pipeline().addLast(UPSTREAM, new Upstream());
                    }
                })
                .connect(bridge.localAddr());
        upstream = connecting.channel(); // before the listener, which may run at once on loopback
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                unreachable.warn("http bridge plugin cannot reach localAddr {}: {} (answered 502)",
                        bridge.describe(), Failures.describe(f.cause()));
                releasePending();
                fail(HttpResponseStatus.BAD_GATEWAY, "cannot reach the local app at " + bridge.describe()
                        + ": " + Failures.describe(f.cause()));
                return;
            }
            connected = true;
            Object msg;
            while ((msg = pending.poll()) != null) {
                upstream.write(msg, upstream.voidPromise());
            }
            upstream.flush();
            upstream.read();
            if (upstream.isWritable()) {
                ctx.read();
            }
        });
    }

    private void releasePending() {
        Object msg;
        while ((msg = pending.poll()) != null) {
            ReferenceCountUtil.release(msg);
        }
    }

    private void fail(HttpResponseStatus status, String why) {
        FullHttpResponse response = SimpleResponses.status(ctx, status, false);
        response.content().clear().writeCharSequence(status + ": " + why + "\n", StandardCharsets.UTF_8);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    /** The connection to {@code localAddr}: responses back to the visitor, in order. */
    private final class Upstream extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext up, Object msg) {
            if (msg instanceof HttpObject object && object.decoderResult().isFailure()) {
                ReferenceCountUtil.release(msg);
                LOG.debug("{} malformed response from the local app: {}", up.channel(), object.decoderResult().cause().toString());
                up.close();
                ctx.close();
                return;
            }
            if (msg instanceof HttpResponse response
                    && response.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
                switchToRaw(up, response);
                return;
            }
            ctx.write(msg, ctx.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext up) {
            ctx.flush();
            if (ctx.channel().isWritable()) {
                up.read();
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext up) {
            if (up.channel().isWritable()) {
                ctx.read();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext up) {
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext up, Throwable cause) {
            LOG.debug("{} local app connection failed: {}", up.channel(), Failures.describe(cause));
            up.close();
        }

        /**
         * The local app accepted an upgrade: the 101 goes to the visitor, then both connections
         * carry raw bytes (what either decoder held behind the head goes first).
         */
        private void switchToRaw(ChannelHandlerContext up, HttpResponse response) {
            ReferenceCountUtil.release(response);
            ctx.writeAndFlush(new DefaultFullHttpResponse(response.protocolVersion(), response.status(),
                    Unpooled.EMPTY_BUFFER, response.headers(), EmptyHttpHeaders.INSTANCE));
            Channel visitor = ctx.channel();
            PipeRelay front = PipeRelay.replace(visitor, NAME);
            visitor.pipeline().remove(codecName);
            PipeRelay back = PipeRelay.replace(up.channel(), UPSTREAM);
            up.channel().pipeline().remove(UPSTREAM_CODEC);
            PipeRelay.join(front, back);
        }
    }
}
