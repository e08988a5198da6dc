package dev.tunnel.server.vhost;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes the requests of one public connection on the vhost HTTP port, each on its own: a
 * keep-alive connection may send one request to one proxy and the next to another proxy of
 * another client. Sits behind Netty's request decoder ({@link RequestDecoder}, {@link HttpVhostInitializer}),
 * so it sees request heads (with the bytes they came in) and body parts; bodies are never
 * aggregated. Responses come back from the {@link Upstream} as bytes to write as they are.
 *
 * <h3>One request at a time</h3>
 * A request head is routed and rewritten, or answered here ({@link RequestHeads}), and put on a
 * connection to its proxy's app ({@link RequestDispatch}, {@link Upstreams}). The next request is
 * handled once the response is complete ({@link Exchange}); a pipelined one waits, unread
 * ({@link VisitorReads}). Each step is a {@link ConnectionPhase}.
 *
 * <h3>Reuse</h3>
 * A connection to an app whose exchange ended cleanly with both sides keep-alive
 * ({@link Exchange#upstreamReusable}) is kept while requests go to its proxy, and parked for
 * other public connections once this one closes or goes elsewhere. A bodiless idempotent request
 * whose reused connection closes before any byte of an answer is sent once more on a new one
 * ({@link RequestDispatch}).
 *
 * <h3>Backpressure</h3>
 * {@code AUTO_READ} is off: the socket is read while a head is awaited, or while a body goes to
 * a writable upstream; {@link #onUpstreamWritable} resumes. Response bytes go back with their
 * credit returned once the socket took them ({@link ResponseRelay}).
 *
 * <h3>Upgrade</h3>
 * A 101 answer hands the connection to a raw relay to the same app connection
 * ({@link ProtocolSwitch}): bytes both ways from then on (WebSocket).
 *
 * <h3>Errors</h3>
 * 400/414/431 for requests that cannot be parsed or routed (then closed), 404 for an unknown
 * host, 401 for failed auth ({@link RequestHeads}); 502 when no connection to the app could be
 * opened or it was reset before a response, 504 after {@code vhostHTTPTimeout} without one
 * ({@link Replies}, {@link ExchangeTimeouts}). A body that is malformed or cut short by the
 * visitor's FIN ({@link RequestDecoder}) is 400, one with no byte for {@code vhostHTTPBodyTimeout}
 * 408; both close, and reset the app's connection ({@link ExchangeAbort}).
 *
 * <p>Threading: runs on the connection's event loop, which is the loop of its current upstream.
 */
public final class HttpVhostHandler extends ChannelInboundHandlerAdapter implements Upstream.Listener {
    private static final Logger log = LoggerFactory.getLogger(HttpVhostHandler.class);

    private final VhostSettings vhost;
    private final String proto;
    private final LoopAffinity affinity;
    private final VisitorReads reads = new VisitorReads();
    private final Exchange exchange = new Exchange();
    private ChannelHandlerContext ctx;
    private Replies replies;
    private ExchangeAbort abort;
    private RequestHeads heads;
    private ResponseRelay responses;
    private ExchangeTimeouts timeouts;
    private ConnectionPhase phase = ConnectionPhase.HEAD;
    private Upstreams upstreams;
    private RequestDispatch requests;

    /**
     * @param proto    what {@code X-Forwarded-Proto} says: "http"
     * @param affinity told where each routed request went, so the port registers new connections there; may be null
     */
    HttpVhostHandler(VhostSettings vhost, String proto, LoopAffinity affinity) {
        this.vhost = vhost;
        this.proto = proto;
        this.affinity = affinity;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.timeouts = new ExchangeTimeouts(ctx.channel(), vhost, this::headTimedOut, this::bodyTimedOut,
                this::responseTimedOut);
        this.replies = new Replies(ctx, vhost, this::closing);
        this.heads = new RequestHeads(vhost, ctx.channel(), proto);
        this.responses = new ResponseRelay(ctx, exchange, this::responseStarted);
        this.upstreams = new Upstreams(ctx, this, affinity, timeouts::stop, // its task lives on the loop being left
                vhost.counters());
        this.requests = new RequestDispatch(ctx.channel(), upstreams, vhost.counters(), this::opened);
        this.abort = new ExchangeAbort(ctx, exchange, upstreams, replies, this::closing);
        if (ctx.channel().isActive()) {
            timeouts.awaitHead();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        timeouts.awaitHead();
        ctx.fireChannelActive();
        readIfWanted(); // AUTO_READ is off: the first read is ours to ask for
    }

    // ---- public side ----

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        reads.add(msg);
        process();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        readIfWanted();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ChannelInputShutdownEvent.INSTANCE) {
            reads.inputClosed();
            if (phase == ConnectionPhase.HEAD && !reads.waiting()) {
                ctx.close();
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        phase = ConnectionPhase.CLOSING;
        timeouts.stop();
        if (exchange.complete() && exchange.upstreamReusable) {
            upstreams.release();
        } else {
            upstreams.end(!exchange.complete());
        }
        releasePending();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("{} closing: {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    /** Handles what was read, as far as the phase allows; the rest waits in {@link VisitorReads}. */
    private void process() {
        Object msg;
        while ((msg = reads.next(phase)) != null) {
            if (msg instanceof PlainRequest plain) {
                onHead(heads.of(plain));
            } else if (msg instanceof HttpRequest request) {
                onHead(heads.of(request, reads.takeHeadBytes()));
            } else if (msg instanceof HttpContent content && phase == ConnectionPhase.BODY) {
                onBody(content);
            } else if (msg instanceof LastHttpContent && phase == ConnectionPhase.DISCARD) {
                ReferenceCountUtil.release(msg);
                phase = ConnectionPhase.HEAD;
                timeouts.awaitHead();
            } else {
                ReferenceCountUtil.release(msg);
            }
        }
        if (phase == ConnectionPhase.CLOSING && reads.waiting()) {
            releasePending();
        }
    }

    private void readIfWanted() {
        Upstream up = upstreams.current();
        reads.readIfWanted(ctx, phase, up != null && up.isWritable());
    }

    /** A head was read: it is forwarded ({@link RequestDispatch}) or answered here. */
    private void onHead(RequestHeads.Next next) {
        timeouts.cancel();
        if (next instanceof RequestHeads.Forward forward) {
            exchange.request(forward.keepAlive());
            phase = ConnectionPhase.OPENING;
            requests.dispatch(forward.head(), forward.route());
        } else {
            answer((RequestHeads.Answer) next);
        }
    }

    /**
     * A routed head has a connection to go on, or none could be had ({@link RequestDispatch.Opened}).
     * A head sent {@code again} had its body (none) forwarded already, so its end is sent here, as
     * for a head that is the whole request ({@link Outgoing#whole}).
     */
    private void opened(Outgoing head, Entry<HttpRoute> found, boolean ok, boolean again, boolean waited) {
        if (phase != ConnectionPhase.OPENING || !ctx.channel().isActive()) {
            head.release();
            return;
        }
        if (!ok) {
            head.release();
            replies.badGateway(found, "the proxy's client is gone or refused the connection");
            return;
        }
        exchange.dispatched(head.reusable(), head.headRequest());
        phase = ConnectionPhase.BODY;
        requests.send(head, found, again);
        if (again || head.whole()) {
            onBody(LastHttpContent.EMPTY_LAST_CONTENT);
        } else {
            timeouts.awaitBody();
        }
        if (waited) { // nothing was read meanwhile
            process();
            readIfWanted();
        }
    }

    private void onBody(HttpContent content) {
        if (content.decoderResult().isFailure()) { // a malformed chunk, or the visitor's FIN inside the body
            content.release();
            abort.badBody(replies.badBody(content.decoderResult().cause()));
            return;
        }
        boolean last = content instanceof LastHttpContent;
        upstreams.current().send(content);
        if (!last) {
            timeouts.awaitBody();
            return;
        }
        exchange.requestDone = true;
        if (exchange.responseDone) {
            exchangeDone();
        } else {
            phase = ConnectionPhase.RESPONSE;
            if (exchange.responseStarted) {
                timeouts.cancel();
            } else {
                timeouts.awaitResponse();
            }
        }
    }

    // ---- upstream side ----

    @Override
    public void onResponse(Upstream from, List<Object> parts, int rawBytes) {
        if (from != upstreams.current() || phase == ConnectionPhase.CLOSING) {
            ResponseRelay.drop(from, parts, rawBytes);
            return;
        }
        requests.answered(); // whatever happens now, the request is not sent again
        String failure = responses.pass(from, parts, rawBytes);
        if (failure != null) {
            abort.badGateway(requests.route(), failure);
        } else if (exchange.responseDone && exchange.upgrading) {
            upgrade();
        } else if (exchange.complete()) {
            exchangeDone();
        }
    }

    /** A final response head came: the response timeout ends (a body's runs on while it is sent). */
    private void responseStarted() {
        if (phase != ConnectionPhase.BODY) {
            timeouts.cancel();
        }
    }

    @Override
    public void onUpstreamFin(Upstream from) {
        if (from == upstreams.current()) {
            appEnded(false, "it closed the connection without a response");
        }
    }

    @Override
    public void onUpstreamReset(Upstream from, int code) {
        if (from == upstreams.current()) {
            upstreams.forget();
            appEnded(true, code == ResetCode.CONNECT_FAILED ? "the local app refused the connection (is it running?)"
                    : "its connection was reset (" + ResetCode.name(code) + ")");
        }
    }

    /**
     * The current app connection closed ({@code reset}: was reset, and is let go of already).
     * Between requests that is the app's right: the next request opens another. Else the request
     * goes again when it may, a 502 says {@code why} when nothing of the response came, and the
     * visitor's connection closes when the response was under way (after what was written of it,
     * for a close; at once for a reset).
     */
    private void appEnded(boolean reset, String why) {
        if (phase == ConnectionPhase.HEAD) {
            upstreams.end(false);
        } else if (requests.canSendAgain()) {
            sendAgain();
        } else if (!exchange.responseStarted) {
            abort.badGateway(requests.route(), why);
        } else if (reset) {
            ctx.close();
        } else if (!exchange.responseDone) {
            replies.closeAfterWrites(); // the response was cut short
        }
    }

    @Override
    public void onUpstreamWritable(Upstream from) {
        if (from == upstreams.current()) {
            readIfWanted();
        }
    }

    // ---- exchange ends ----

    private void exchangeDone() {
        timeouts.cancel();
        if (!exchange.upstreamReusable) {
            upstreams.end(false);
        }
        if (!exchange.keepAlive || reads.isInputClosed()) {
            upstreams.release(); // free for the next public connection at once
            replies.closeAfterWrites();
            return;
        }
        phase = ConnectionPhase.HEAD;
        timeouts.awaitHead();
        process();
        readIfWanted();
    }

    /** Sends the request in flight again on a new connection: the reused one failed before answering. */
    private void sendAgain() {
        timeouts.cancel();
        phase = ConnectionPhase.OPENING;
        requests.sendAgain();
    }

    /** The app answered 101: from here the stream carries raw bytes both ways. */
    private void upgrade() {
        timeouts.stop();
        phase = ConnectionPhase.UPGRADED;
        ProtocolSwitch.toRelay(ctx, upstreams.forget(), reads.unhandled());
    }

    private void responseTimedOut() {
        if (phase == ConnectionPhase.RESPONSE && !exchange.responseStarted) {
            abort.gatewayTimeout(requests.route());
        }
    }

    private void bodyTimedOut() {
        if (phase == ConnectionPhase.BODY) {
            abort.badBody(replies.bodyTimedOut());
        }
    }

    /**
     * Answers a request itself. The connection stays open when the request allows it: the next
     * head is awaited at once after a whole one, else once the empty last part the decoder emits
     * behind a bodiless head ends the exchange ({@link ConnectionPhase#DISCARD}).
     */
    private void answer(RequestHeads.Answer answer) {
        if (answer.close() || reads.isInputClosed()) {
            replies.sendAndClose(answer.page());
            return;
        }
        phase = answer.whole() ? ConnectionPhase.HEAD : ConnectionPhase.DISCARD;
        if (answer.whole()) {
            timeouts.awaitHead();
        }
        replies.send(answer.page());
    }

    /** Nothing more is read or handled: the connection closes once its last writes are out. */
    private void closing() {
        timeouts.cancel();
        phase = ConnectionPhase.CLOSING;
        releasePending();
    }

    private void headTimedOut() {
        if (phase == ConnectionPhase.HEAD) {
            replies.headTimedOut();
        }
    }

    private void releasePending() {
        requests.answered();
        reads.releaseAll();
    }
}
