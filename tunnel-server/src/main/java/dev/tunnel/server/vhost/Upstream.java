package dev.tunnel.server.vhost;

import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.relay.RelayCounter;
import dev.tunnel.runtime.BurstLog;
import dev.tunnel.server.proxy.AppConnection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.LoggerFactory;

/**
 * One connection to a proxy's local app (a stream, or a work connection in pool mode), carrying
 * the HTTP requests of one public connection at a time: while they go to that proxy, then
 * parked in the proxy's {@link IdleUpstreams} for the next request from any public connection
 * ({@link #park}, {@link #bind}). Requests go out re-encoded by Netty's
 * {@link HttpRequestEncoder} (called directly: a request whose framing the app reads exactly as
 * the vhost routed it cannot smuggle a second one past it), or, without a body and with nothing
 * but the forwarding headers to add, as the bytes they came in ({@link RequestSplice}); responses
 * come back framed by a {@link ResponseReader} and pass on as the bytes they arrived in. Bodies
 * pass through as retained slices, never aggregated.
 *
 * <h3>Flow control</h3>
 * Credit for the bytes the connection delivered goes back through {@link #consumed} once the
 * visitor's socket took them ({@link Listener#onResponse}).
 *
 * <h3>Closing</h3>
 * {@link #detach} ends its use: FIN to the app, whatever still arrives is dropped (with its
 * credit returned, so the connection can finish). A parked connection is dropped from its pool
 * and ended when the app closes or resets it, or sends anything (no request is outstanding).
 * Bytes beyond the response asked for ({@link AskedResponses}) never reach a visitor: they are
 * dropped and the connection reset, with a line in the log once per burst.
 *
 * <p>Threading: every method runs on the connection's loop, where the public connection is
 * registered while it uses this upstream.
 */
final class Upstream implements StreamHandler {
    /** Largest response head accepted from a local app (status line and headers). */
    static final int MAX_RESPONSE_HEAD = 64 * 1024;
    private static final BurstLog UNASKED_LOG = new BurstLog(LoggerFactory.getLogger(HttpVhostHandler.class));

    /** Receives what the upstream produces; the public connection's handler. */
    interface Listener {
        /**
         * What {@code rawBytes} of the app's data brought, in order ({@link ResponseReader#read}'s
         * output: heads, ends, failures, and bytes for the visitor). The list is reused: read it
         * before returning.
         */
        void onResponse(Upstream upstream, List<Object> parts, int rawBytes);

        void onUpstreamFin(Upstream upstream);

        void onUpstreamReset(Upstream upstream, int code);

        void onUpstreamWritable(Upstream upstream);
    }

    final AppConnection conn;
    private final RequestEncoder requests = new RequestEncoder();
    private final ResponseReader responses;
    private final AskedResponses asked = new AskedResponses();
    private final List<Object> parts = new ArrayList<>(4);
    private final List<Object> encoded = new ArrayList<>(3);
    private final RelayCounter traffic;
    private final IdleUpstreams pool;
    private RouteTable.Entry<HttpRoute> route;
    private ChannelHandlerContext ctx;
    private Listener listener;
    /** Requests it carried, over every public connection. */
    private int requestCount;
    private boolean parked;
    /** The current request's head went spliced: its (empty) end is not encoded. */
    private boolean splicedBody;
    private boolean detached;
    private boolean finReceived;
    private boolean reset;

    /** @param ctx the public connection's context (buffers for the codecs) */
    Upstream(ChannelHandlerContext ctx, RouteTable.Entry<HttpRoute> route, AppConnection conn, Listener listener) {
        this.ctx = ctx;
        this.route = route;
        this.conn = conn;
        this.listener = listener;
        VhostTarget target = route.target().target();
        this.traffic = target.traffic();
        this.pool = target.idle();
        this.responses = new ResponseReader(ctx, route.target().responseHeaders());
        conn.handler(this);
    }

    VhostTarget target() {
        return route.target().target();
    }

    /**
     * Whether it carried a request before the one sent next (so an app may have closed it
     * meanwhile): asked before {@link #sendHead}.
     */
    boolean reused() {
        return requestCount > 0;
    }

    /** Whether a new request may go on this connection: the app has not closed or reset it. */
    boolean usable() {
        return !detached && !finReceived && !reset && conn.isOpen();
    }

    boolean isWritable() {
        return conn.isWritable();
    }

    /**
     * Takes a parked connection into use by {@code ctx}'s public connection (on this connection's
     * loop, where that connection is now registered); false if it became unusable while it moved
     * (it is ended then).
     */
    boolean bind(ChannelHandlerContext ctx, RouteTable.Entry<HttpRoute> route, Listener listener) {
        parked = false;
        if (!usable()) {
            detach(false);
            return false;
        }
        this.ctx = ctx;
        this.route = route;
        this.listener = listener;
        responses.context(ctx);
        return true;
    }

    /**
     * Its user is done with it after a clean keep-alive exchange: parks it in its proxy's pool,
     * or ends it (FIN) when the pool is full or closed.
     */
    void park() {
        if (!usable() || !responses.atRest()) {
            detach(false);
            return;
        }
        listener = null;
        ctx = null;
        parked = true;
        if (!pool.offer(this)) {
            parked = false;
            detach(false);
        }
    }

    /** Ends a parked connection the pool let go of (expired, or the proxy is gone); any thread. */
    void endIdle() {
        try {
            conn.eventLoop().execute(() -> {
                if (parked) {
                    parked = false;
                    detach(false);
                }
            });
        } catch (RejectedExecutionException stopping) {
            // the server is stopping: the connection closes with its loop
        }
    }

    /**
     * Sends a request head: {@code spliced} when it is given (its bytes with the forwarding
     * headers added: {@link RequestSplice}, for a request without a body), else {@code head}
     * encoded. Ownership of both passes here.
     *
     * @param headRequest it is a HEAD request: its answer has no body
     */
    void sendHead(HttpRequest head, ByteBuf spliced, boolean headRequest) {
        requestCount++;
        asked.requestSent();
        if (spliced == null) {
            send(head);
            return;
        }
        if (detached || reset) {
            spliced.release();
            return;
        }
        responses.expectHeadResponse(headRequest);
        splicedBody = true;
        write(spliced);
    }

    /** Encodes a request part (content, or the head of a request not spliced; ownership passes here) and sends it. */
    void send(HttpObject part) {
        if (detached || reset) {
            ReferenceCountUtil.release(part);
            return;
        }
        if (splicedBody) { // the head went as bytes, not through the encoder: nothing follows it but its end
            splicedBody = !(part instanceof LastHttpContent);
            ReferenceCountUtil.release(part);
            return;
        }
        if (part instanceof HttpRequest head) {
            responses.expectHeadResponse(HttpMethod.HEAD.equals(head.method()));
        }
        requests.encode(ctx, part, encoded);
        for (Object bytes : encoded) {
            write((ByteBuf) bytes);
        }
        encoded.clear();
    }

    private void write(ByteBuf buf) {
        if (!buf.isReadable()) {
            buf.release(); // the encoder's end of a request without a body
            return;
        }
        traffic.read(buf.readableBytes()); // counted as forwarded, heads as sent
        conn.write(buf);
    }

    /** Returns credit for {@code bytes} the public socket took. */
    void consumed(int bytes) {
        conn.consumed(bytes);
    }

    /** Stops using this connection: FIN to the app (or a reset when {@code abort}); later data is dropped. */
    void detach(boolean abort) {
        if (detached) {
            return;
        }
        detached = true;
        responses.release();
        if (abort) {
            conn.reset();
        } else {
            conn.shutdownOutput();
        }
    }

    /** Hands the connection over (a 101 switch): everything it delivered so far was already passed on. */
    void release() {
        detached = true;
        responses.release();
    }

    /** The app did something while no request was outstanding: drop it from the pool and end it. */
    private void unpark(boolean abort) {
        parked = false;
        pool.remove(this);
        detach(abort);
    }

    // ---- the app's side ----

    @Override
    public void onData(ByteBuf data) {
        int bytes = data.readableBytes();
        if (detached || listener == null) {
            data.release();
            conn.consumed(bytes);
            if (parked) {
                unasked();
                unpark(true); // bytes no request asked for: the connection is out of step
            } else if (!detached) {
                unasked();
                detach(true); // likewise, while it moves to its next user (who opens another)
            }
            return;
        }
        traffic.written(bytes);
        responses.read(data, parts);
        try {
            if (asked.cut(parts, responses)) {
                unasked();
                detach(true); // what it delivered before passes on; the next request opens another
                if (parts.isEmpty()) {
                    conn.consumed(bytes);
                    return;
                }
            }
            listener.onResponse(this, parts, bytes);
        } finally {
            parts.clear();
        }
    }

    private void unasked() {
        UNASKED_LOG.warn("{} (visitor {}) sent bytes beyond the response it was asked for: dropped, connection "
                + "reset (does the app answer a request twice, or write on an idle keep-alive connection?)", this,
                ctx == null ? "none" : ctx.channel());
    }

    @Override
    public void onFin() {
        finReceived = true;
        if (parked) {
            unpark(false);
            return;
        }
        if (detached || listener == null) {
            return;
        }
        responses.finish(parts); // a response delimited by the close ends here
        try {
            if (!parts.isEmpty()) {
                listener.onResponse(this, parts, 0);
            }
        } finally {
            parts.clear();
        }
        listener.onUpstreamFin(this);
    }

    @Override
    public void onReset(int code) {
        reset = true;
        if (parked) {
            unpark(true);
            return;
        }
        if (!detached) {
            detached = true;
            responses.release();
            if (listener != null) {
                listener.onUpstreamReset(this, code);
            }
        }
    }

    @Override
    public void onWritable() {
        if (!detached && listener != null) {
            listener.onUpstreamWritable(this);
        }
    }

    @Override
    public String toString() {
        return conn + " of proxy [" + route.owner() + "]";
    }

    /** Netty's request encoder, called directly (the connection is not a pipeline of ours; see {@link ResponseReader}). */
    private static final class RequestEncoder extends HttpRequestEncoder {
        void encode(ChannelHandlerContext ctx, HttpObject part, List<Object> out) {
            try {
                super.encode(ctx, part, out); // releases part
            } catch (Exception e) {
                throw new IllegalStateException("could not encode a request part", e);
            }
        }
    }
}
