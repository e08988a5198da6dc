package dev.tunnel.server.vhost;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamHandler;
import dev.tunnel.protocol.relay.RelayCounter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * One stream to a proxy's local app, carrying the HTTP requests of one public connection while
 * they go to that proxy. Requests are encoded and responses decoded by Netty's
 * {@link HttpClientCodec}, run on an {@link EmbeddedChannel} beside the stream (so it also
 * knows which responses answer HEAD and when a 101 switches protocols); bodies pass through as
 * retained slices, never aggregated.
 *
 * <h3>Flow control</h3>
 * Credit for the bytes the stream delivered goes back through {@link #consumed} once the
 * decoded parts were written to the public socket ({@link Listener#onResponse}).
 *
 * <h3>Closing</h3>
 * {@link #detach()} ends its use: FIN to the app, whatever still arrives is dropped (with its
 * credit returned, so the stream can finish).
 *
 * <p>Threading: every method runs on the stream's session loop, where the public connection
 * is registered while it uses this upstream.
 */
final class Upstream implements StreamHandler {
    /** Largest response head accepted from a local app (status line and headers). */
    static final int MAX_RESPONSE_HEAD = 64 * 1024;

    /** Receives what the upstream produces; the public connection's handler. */
    interface Listener {
        /** Decoded response parts, in order; {@code rawBytes} of stream data produced them. */
        void onResponse(Upstream upstream, List<Object> parts, int rawBytes);

        void onUpstreamFin(Upstream upstream);

        void onUpstreamReset(Upstream upstream, int code);

        void onUpstreamWritable(Upstream upstream);
    }

    final RouteTable.Entry<HttpRoute> route;
    final MuxStream stream;
    private final EmbeddedChannel codec;
    private final Listener listener;
    private final RelayCounter traffic;
    private boolean detached;
    private boolean finReceived;
    private boolean reset;

    Upstream(RouteTable.Entry<HttpRoute> route, MuxStream stream, Listener listener) {
        this.route = route;
        this.stream = stream;
        this.listener = listener;
        this.traffic = route.target().target().traffic();
        HttpDecoderConfig responses = new HttpDecoderConfig().setMaxInitialLineLength(8192)
                .setMaxHeaderSize(MAX_RESPONSE_HEAD).setMaxChunkSize(256 * 1024);
        this.codec = new EmbeddedChannel(new HttpClientCodec(responses, false, false));
        stream.handler(this);
    }

    VhostTarget target() {
        return route.target().target();
    }

    /** Whether a new request may go on this stream: the app has not closed or reset it. */
    boolean usable() {
        return !detached && !finReceived && !reset && !stream.isClosed();
    }

    boolean isWritable() {
        return stream.isWritable();
    }

    /** Encodes a request part (head or content; ownership passes here) and sends it. */
    void send(Object httpObject) {
        if (detached || reset) {
            io.netty.util.ReferenceCountUtil.release(httpObject);
            return;
        }
        codec.writeOutbound(httpObject);
        ByteBuf encoded;
        while ((encoded = codec.readOutbound()) != null) {
            traffic.read(encoded.readableBytes()); // counted as forwarded, heads as re-encoded
            stream.write(encoded);
        }
    }

    /** Returns credit for {@code bytes} the public socket took. */
    void consumed(int bytes) {
        stream.consumed(bytes);
    }

    /** Stops using this stream: FIN to the app (or a reset when {@code abort}); later data is dropped. */
    void detach(boolean abort) {
        if (detached) {
            return;
        }
        detached = true;
        codec.finishAndReleaseAll();
        if (abort) {
            stream.reset(ResetCode.CANCEL);
        } else {
            stream.shutdownOutput();
        }
    }

    /** Hands the stream over (a 101 switch): returns the bytes the codec still holds, in order. */
    List<Object> release() {
        detached = true;
        List<Object> left = new ArrayList<>();
        codec.finish();
        Object m;
        while ((m = codec.readInbound()) != null) {
            left.add(m);
        }
        codec.finishAndReleaseAll();
        return left;
    }

    // ---- stream side ----

    @Override
    public void onData(ByteBuf data) {
        int bytes = data.readableBytes();
        if (detached) {
            data.release();
            stream.consumed(bytes);
            return;
        }
        traffic.written(bytes);
        codec.writeInbound(data);
        listener.onResponse(this, drainInbound(), bytes);
    }

    @Override
    public void onFin() {
        finReceived = true;
        if (detached) {
            return;
        }
        codec.finish(); // a response delimited by the close ends here
        List<Object> last = drainInbound();
        if (!last.isEmpty()) {
            listener.onResponse(this, last, 0);
        }
        listener.onUpstreamFin(this);
    }

    @Override
    public void onReset(int code) {
        reset = true;
        if (!detached) {
            detached = true;
            codec.finishAndReleaseAll();
            listener.onUpstreamReset(this, code);
        }
    }

    @Override
    public void onWritable() {
        if (!detached) {
            listener.onUpstreamWritable(this);
        }
    }

    private List<Object> drainInbound() {
        List<Object> parts = new ArrayList<>(4);
        Object m;
        while ((m = codec.readInbound()) != null) {
            parts.add(m);
        }
        return parts;
    }

    @Override
    public String toString() {
        return stream + " of proxy [" + route.owner() + "]";
    }
}
