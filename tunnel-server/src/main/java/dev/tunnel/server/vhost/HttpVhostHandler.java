package dev.tunnel.server.vhost;

import dev.tunnel.runtime.BurstLog;
import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamRelay;
import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes the requests of one public connection on the vhost HTTP port, each on its own: a
 * keep-alive connection may send one request to one proxy and the next to another proxy of
 * another client. Sits behind {@link HttpServerCodec}, so it sees request heads and body parts;
 * bodies are never aggregated.
 *
 * <h3>One request at a time</h3>
 * A request head is routed ({@link RouteTable}), checked (Basic auth), rewritten (forwarding
 * headers, Host, {@code requestHeaders.set}) and sent on the connection's {@link Upstream}: the
 * stream it already has when that goes to the same proxy, else a new one (the old one gets FIN).
 * The next request is handled once the response is complete; a pipelined one waits, unread.
 * Proxies of other sessions live on other event loops: the connection moves to the proxy's
 * loop ({@link ChannelMover}) before it opens the stream.
 *
 * <h3>Backpressure</h3>
 * {@code AUTO_READ} is off: the socket is read while a head is awaited, or while a body goes to
 * a writable stream; {@link #onUpstreamWritable} resumes. Response parts go back with their
 * stream credit returned once the socket took them.
 *
 * <h3>Upgrade</h3>
 * A 101 answer hands the connection to a {@link StreamRelay} on the same stream: raw bytes both
 * ways from then on (WebSocket).
 *
 * <h3>Errors</h3>
 * 400/414/431 for requests that cannot be parsed or routed (then closed), 404 for an unknown
 * host, 401 for failed auth, 502 when the stream is refused or reset before a response, 504
 * after {@code vhostHTTPTimeout} without one; each kind logged once per burst with the proxy.
 *
 * <p>Threading: runs on the connection's event loop, which is the session loop of its current
 * upstream.
 */
public final class HttpVhostHandler extends ChannelInboundHandlerAdapter implements Upstream.Listener {
    private static final Logger log = LoggerFactory.getLogger(HttpVhostHandler.class);
    private static final BurstLog GATEWAY_LOG = new BurstLog(log);

    private enum Phase { HEAD, BODY, DISCARD, RESPONSE, MOVING, UPGRADED, CLOSING }

    private final VhostSettings vhost;
    private final String proto;
    private final LoopAffinity affinity;
    private final ArrayDeque<Object> pending = new ArrayDeque<>(4);
    private ChannelHandlerContext ctx;
    private Phase phase = Phase.HEAD;
    private Upstream upstream;
    private Entry<HttpRoute> route;
    private final Exchange exchange = new Exchange();
    private boolean inputClosed;
    private ConnectionTimer timer;
    private final Runnable headTimedOut = this::headTimedOut;
    private final Runnable responseTimedOut = this::responseTimedOut;
    private String visitorIp;

    /** @param proto what {@code X-Forwarded-Proto} says: "http" */
    public HttpVhostHandler(VhostSettings vhost, String proto) {
        this(vhost, proto, null);
    }

    /** @param affinity told where each routed request went, so the port registers new connections there; may be null */
    HttpVhostHandler(VhostSettings vhost, String proto, LoopAffinity affinity) {
        this.vhost = vhost;
        this.proto = proto;
        this.affinity = affinity;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.timer = new ConnectionTimer(ctx.channel());
        if (ctx.channel().isActive()) {
            awaitHead();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        awaitHead();
        ctx.fireChannelActive();
        readIfWanted(); // AUTO_READ is off: the first read is ours to ask for
    }

    // ---- public side ----

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        pending.add(msg);
        process();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        readIfWanted();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ChannelInputShutdownEvent.INSTANCE) {
            inputClosed = true;
            if (phase == Phase.HEAD && pending.isEmpty()) {
                ctx.close();
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        phase = Phase.CLOSING;
        timer.stop();
        if (upstream != null) {
            upstream.detach(!exchange.complete());
            upstream = null;
        }
        releasePending();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("{} closing: {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    private void process() {
        while (!pending.isEmpty()) {
            Object msg = pending.peek();
            boolean isHead = msg instanceof HttpRequest;
            if (phase == Phase.MOVING || phase == Phase.RESPONSE || phase == Phase.CLOSING
                    || phase == Phase.UPGRADED || (isHead && phase != Phase.HEAD)) {
                if (phase == Phase.CLOSING) {
                    releasePending();
                }
                return; // handled once the current exchange is over
            }
            pending.poll();
            if (isHead) {
                onHead((HttpRequest) msg);
            } else if (msg instanceof HttpContent content && phase == Phase.BODY) {
                onBody(content);
            } else if (msg instanceof LastHttpContent && phase == Phase.DISCARD) {
                ReferenceCountUtil.release(msg);
                phase = Phase.HEAD;
                awaitHead();
            } else {
                ReferenceCountUtil.release(msg);
            }
        }
    }

    private void readIfWanted() {
        if (!pending.isEmpty() || inputClosed || !ctx.channel().isActive()) {
            return;
        }
        if (phase == Phase.HEAD || phase == Phase.DISCARD || (phase == Phase.BODY && upstream != null && upstream.isWritable())) {
            ctx.read();
        }
    }

    private void onHead(HttpRequest request) {
        cancelTimer();
        RequestRouting.Decision decision = RequestRouting.decide(vhost, request, ctx.channel());
        if (decision.answer() != null && decision.close()) {
            ReferenceCountUtil.release(request); // a head the codec could not parse: its Content-Length may be junk
            answerAndClose(decision.answer());
            return;
        }
        exchange.request(request);
        if (decision.answer() != null) {
            answer(decision.answer(), HttpUtil.isTransferEncodingChunked(request)
                    || HttpUtil.getContentLength(request, 0L) > 0);
            return;
        }
        if (visitorIp == null) {
            visitorIp = RequestTarget.ipOf(ctx.channel().remoteAddress());
        }
        RequestTarget.addForwarded(request, visitorIp, proto);
        decision.route().target().rewriteRequest(request);
        dispatch(request, decision.route());
    }

    /** Sends a routed head on a stream of its proxy, moving the connection to the proxy's loop first if needed. */
    private void dispatch(HttpRequest request, Entry<HttpRoute> found) {
        VhostTarget target = found.target().target();
        if (upstream != null && (upstream.target() != target || !upstream.usable())) {
            upstream.detach(false);
            upstream = null;
        }
        if (upstream == null && target.eventLoop() != ctx.channel().eventLoop()) {
            phase = Phase.MOVING;
            timer.stop(); // its task lives on the loop being left
            ChannelMover.moveTo(ctx.channel(), target.eventLoop(), () -> {
                if (phase == Phase.MOVING && ctx.channel().isActive()) {
                    phase = Phase.HEAD;
                    dispatch(request, found);
                    process();
                    readIfWanted();
                } else {
                    ReferenceCountUtil.release(request);
                }
            });
            return;
        }
        if (upstream == null) {
            MuxStream stream = target.openStream(ctx.channel());
            if (stream == null) {
                ReferenceCountUtil.release(request);
                badGateway(found, "the proxy's client is gone or refused the connection");
                return;
            }
            upstream = new Upstream(found, stream, this);
            if (affinity != null) {
                affinity.routedTo(target.eventLoop());
            }
        }
        route = found;
        exchange.dispatched(request);
        phase = Phase.BODY;
        upstream.send(request);
    }

    private void onBody(HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        upstream.send(content);
        if (last) {
            exchange.requestDone = true;
            if (exchange.responseDone) {
                exchangeDone();
            } else {
                phase = Phase.RESPONSE;
                if (!exchange.responseStarted) {
                    startTimer(vhost.responseTimeoutSeconds(), responseTimedOut);
                }
            }
        }
    }

    // ---- upstream side ----

    @Override
    public void onResponse(Upstream from, List<Object> parts, int rawBytes) {
        if (from != upstream || phase == Phase.CLOSING) {
            parts.forEach(ReferenceCountUtil::release);
            from.consumed(rawBytes);
            return;
        }
        ChannelFuture lastWrite = null;
        for (Object part : parts) {
            if (part instanceof HttpResponse response) {
                if (response.decoderResult().isFailure()) {
                    log.debug("{} bad response from {}: {}", ctx.channel(), upstream, response.decoderResult().cause());
                    ReferenceCountUtil.release(part);
                    failUpstream("its response could not be parsed");
                    parts.forEach(p -> { if (p != part) ReferenceCountUtil.release(p); });
                    from.consumed(rawBytes);
                    return;
                }
                if (exchange.responseHead(response)) {
                    cancelTimer();
                }
                route.target().rewriteResponse(response);
                lastWrite = ctx.write(part);
            } else if (part instanceof HttpObject) {
                lastWrite = ctx.write(part);
                exchange.responsePart((HttpObject) part);
            } else {
                lastWrite = ctx.write(part); // raw bytes behind a 101 in the same read
            }
        }
        if (lastWrite != null) {
            from.stream.flushLater(ctx.channel());
            lastWrite.addListener(f -> from.consumed(rawBytes));
        } else {
            from.consumed(rawBytes);
        }
        if (exchange.responseDone && exchange.upgrading) {
            upgrade();
        } else if (exchange.complete()) {
            exchangeDone();
        }
    }

    @Override
    public void onUpstreamFin(Upstream from) {
        if (from != upstream) {
            return;
        }
        if (phase == Phase.HEAD) {
            upstream.detach(false); // the app closed a kept-alive connection: the next request opens another
            upstream = null;
        } else if (!exchange.responseStarted) {
            failUpstream("it closed the connection without a response");
        } else if (!exchange.responseDone) {
            closeAfterWrites(); // the response was cut short
        }
    }

    @Override
    public void onUpstreamReset(Upstream from, int code) {
        if (from != upstream) {
            return;
        }
        upstream = null;
        if (phase == Phase.HEAD) {
            return;
        }
        if (!exchange.responseStarted) {
            badGateway(route, code == ResetCode.CONNECT_FAILED ? "the local app refused the connection (is it running?)"
                    : "the stream was reset (" + ResetCode.name(code) + ")");
        } else {
            ctx.close();
        }
    }

    @Override
    public void onUpstreamWritable(Upstream from) {
        if (from == upstream) {
            readIfWanted();
        }
    }

    // ---- exchange ends ----

    private void exchangeDone() {
        cancelTimer();
        if (!exchange.keepAlive || inputClosed) {
            closeAfterWrites();
            return;
        }
        if (upstream != null && !upstream.usable()) {
            upstream.detach(false);
            upstream = null;
        }
        phase = Phase.HEAD;
        awaitHead();
        process();
        readIfWanted();
    }

    /** The app answered 101: from here the stream carries raw bytes both ways, through a {@link StreamRelay}. */
    private void upgrade() {
        timer.stop();
        phase = Phase.UPGRADED;
        Upstream up = upstream;
        upstream = null;
        List<Object> left = up.release();
        for (Object m : left) {
            ctx.write(m);
        }
        ctx.flush();
        ctx.pipeline().remove(HttpServerCodec.class); // bytes it held arrive here as ByteBufs
        StreamRelay relay = new StreamRelay(up.stream, up.target().traffic());
        ArrayDeque<Object> early = new ArrayDeque<>(pending);
        pending.clear();
        ctx.pipeline().replace(this, TunnelPipeline.RELAY, relay);
        ctx.pipeline().fireChannelActive(); // the relay starts as on a new connection
        for (Object m : early) {
            if (m instanceof ByteBuf) {
                ctx.pipeline().fireChannelRead(m);
            } else {
                ReferenceCountUtil.release(m);
            }
        }
        ctx.pipeline().fireChannelReadComplete();
    }

    private void responseTimedOut() {
        if (phase == Phase.RESPONSE && !exchange.responseStarted) {
            vhost.counters().gatewayTimeout.incrementAndGet();
            GATEWAY_LOG.warn("{} 504 for {}: no response within {} s (vhostHTTPTimeout)", ctx.channel(),
                    HttpRoute.describe(route), vhost.responseTimeoutSeconds());
            upstream.detach(true);
            upstream = null;
            answerAndClose(vhost.pages().gatewayTimeout(ctx.alloc()));
        }
    }

    private void failUpstream(String why) {
        if (upstream != null) {
            upstream.detach(true);
            upstream = null;
        }
        if (exchange.responseStarted) {
            ctx.close();
        } else {
            badGateway(route, why);
        }
    }

    private void badGateway(Entry<HttpRoute> r, String why) {
        vhost.counters().badGateway.incrementAndGet();
        GATEWAY_LOG.warn("{} 502 for {}: {}", ctx.channel(), HttpRoute.describe(r), why);
        answerAndClose(vhost.pages().badGateway(ctx.alloc()));
    }

    /**
     * Answers a request itself. The connection stays open when the request brought no body: the
     * empty last part the codec emits behind its head ends the exchange ({@link Phase#DISCARD}).
     */
    private void answer(FullHttpResponse response, boolean requestHasBody) {
        if (requestHasBody || !exchange.keepAlive || inputClosed) {
            answerAndClose(response);
            return;
        }
        phase = Phase.DISCARD;
        ctx.writeAndFlush(response);
    }

    private void answerAndClose(FullHttpResponse response) {
        cancelTimer();
        phase = Phase.CLOSING;
        releasePending();
        response.headers().set("Connection", HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    private void closeAfterWrites() {
        phase = Phase.CLOSING;
        cancelTimer();
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    private void awaitHead() {
        startTimer(vhost.headTimeoutSeconds(), headTimedOut);
    }

    private void headTimedOut() {
        if (phase == Phase.HEAD) {
            vhost.counters().slowHeads.incrementAndGet();
            log.debug("{} closing: no complete request head within {} s", ctx.channel(), vhost.headTimeoutSeconds());
            ctx.close();
        }
    }

    private void startTimer(int seconds, Runnable task) {
        timer.start(seconds, task);
    }

    private void cancelTimer() {
        timer.cancel();
    }

    private void releasePending() {
        Object m;
        while ((m = pending.poll()) != null) {
            ReferenceCountUtil.release(m);
        }
    }
}
