package dev.tunnel.server.vhost;

import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.relay.RelayCounter;
import dev.tunnel.server.proxy.AppConnection;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * One connection to a proxy's local app (a stream, or a work connection in pool mode), carrying
 * the HTTP requests of one public connection while they go to that proxy. Requests go out re-encoded by Netty's {@link HttpRequestEncoder}
 * (called directly: their heads changed, and a request whose framing the app reads exactly as
 * the vhost routed it cannot smuggle a second one past it); responses come back framed by a
 * {@link ResponseReader} and pass on as the bytes they arrived in. Bodies pass through as
 * retained slices, never aggregated.
 *
 * <h3>Flow control</h3>
 * Credit for the bytes the connection delivered goes back through {@link #consumed} once the
 * visitor's socket took them ({@link Listener#onResponse}).
 *
 * <h3>Closing</h3>
 * {@link #detach} ends its use: FIN to the app, whatever still arrives is dropped (with its
 * credit returned, so the connection can finish).
 *
 * <p>Threading: every method runs on the connection's loop, where the public connection is
 * registered while it uses this upstream.
 */
final class Upstream implements StreamHandler {
    /** Largest response head accepted from a local app (status line and headers). */
    static final int MAX_RESPONSE_HEAD = 64 * 1024;

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

    final RouteTable.Entry<HttpRoute> route;
    final AppConnection conn;
    private final ChannelHandlerContext ctx;
    private final RequestEncoder requests = new RequestEncoder();
    private final ResponseReader responses;
    private final List<Object> parts = new ArrayList<>(4);
    private final List<Object> encoded = new ArrayList<>(3);
    private final Listener listener;
    private final RelayCounter traffic;
    private boolean detached;
    private boolean finReceived;
    private boolean reset;

    /** @param ctx the public connection's context (buffers for the codecs) */
    Upstream(ChannelHandlerContext ctx, RouteTable.Entry<HttpRoute> route, AppConnection conn, Listener listener) {
        this.ctx = ctx;
        this.route = route;
        this.conn = conn;
        this.listener = listener;
        this.traffic = route.target().target().traffic();
        this.responses = new ResponseReader(ctx, route.target().responseHeaders());
        conn.handler(this);
    }

    VhostTarget target() {
        return route.target().target();
    }

    /** Whether a new request may go on this connection: the app has not closed or reset it. */
    boolean usable() {
        return !detached && !finReceived && !reset && conn.isOpen();
    }

    boolean isWritable() {
        return conn.isWritable();
    }

    /** Encodes a request part (head or content; ownership passes here) and sends it. */
    void send(HttpObject part) {
        if (detached || reset) {
            ReferenceCountUtil.release(part);
            return;
        }
        if (part instanceof HttpRequest head) {
            responses.expectHeadResponse(HttpMethod.HEAD.equals(head.method()));
        }
        requests.encode(ctx, part, encoded);
        for (Object bytes : encoded) {
            ByteBuf buf = (ByteBuf) bytes;
            traffic.read(buf.readableBytes()); // counted as forwarded, heads as re-encoded
            conn.write(buf);
        }
        encoded.clear();
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

    // ---- the app's side ----

    @Override
    public void onData(ByteBuf data) {
        int bytes = data.readableBytes();
        if (detached) {
            data.release();
            conn.consumed(bytes);
            return;
        }
        traffic.written(bytes);
        responses.read(data, parts);
        try {
            listener.onResponse(this, parts, bytes);
        } finally {
            parts.clear();
        }
    }

    @Override
    public void onFin() {
        finReceived = true;
        if (detached) {
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
        if (!detached) {
            detached = true;
            responses.release();
            listener.onUpstreamReset(this, code);
        }
    }

    @Override
    public void onWritable() {
        if (!detached) {
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
