package dev.tunnel.protocol;

import dev.tunnel.protocol.mux.Heartbeat;
import dev.tunnel.protocol.mux.MuxSession;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * Names of every handler in the tunnel's pipelines, and the one picture of each.
 *
 * <h3>Tunnel connection, server side</h3>
 * <pre>
 *  socket ─▶ [tls | tlsDetector] ─▶ preface ─▶ frameDecoder ─▶ frameEncoder ─▶ idle ─▶ mux ─▶ control
 * </pre>
 * {@code tls} is there when {@code transport.tls.force = true}; otherwise {@code tlsDetector}
 * looks at the first byte and installs {@code tls} only for a TLS client. {@code mux} is the
 * {@link dev.tunnel.protocol.mux.MuxSession}; {@code control} handles login and proxies.
 *
 * <h3>Tunnel connection, client side</h3>
 * <pre>
 *  socket ─▶ [tls] ─▶ preface ─▶ frameDecoder ─▶ frameEncoder ─▶ idle ─▶ heartbeat ─▶ mux ─▶ control
 * </pre>
 *
 * In pool mode ({@code transport.tcpMux = false}) the server adds {@code workConnAcceptor}
 * before {@code control}, and the client adds {@code workConns} there: it opens work
 * connections when the server asks ({@code REQ_WORK_CONN}).
 *
 * <h3>Work connection (pool mode), idle in the pool</h3>
 * <pre>
 *  server:  socket ─▶ [tls | tlsDetector] ─▶ frameDecoder ─▶ frameEncoder ─▶ workConn
 *  client:  socket ─▶ [tls] ─▶ preface ─▶ frameDecoder ─▶ frameEncoder ─▶ workConn
 * </pre>
 * The server's work connection starts with the full tunnel pipeline; {@code workConnAcceptor}
 * sees {@code NEW_WORK_CONN} and replaces {@code idle}, {@code heartbeat}, {@code mux} and
 * {@code control} with {@code workConn}.
 *
 * <h3>Work connection (pool mode), after START_WORK_CONN</h3>
 * <pre>
 *  socket ─▶ [tls] ─▶ relay
 * </pre>
 * The codec is removed; the frame decoder stops right behind {@code START_WORK_CONN} and hands
 * the raw bytes after it to {@code relay}, a {@link dev.tunnel.protocol.relay.PipeRelay}.
 *
 * <h3>Public connection (server) and local-app connection (client)</h3>
 * <pre>
 *  socket ─▶ relay
 * </pre>
 * {@code relay} is a {@link dev.tunnel.protocol.mux.StreamRelay} in mux mode, a
 * {@link dev.tunnel.protocol.relay.PipeRelay} in pool mode: raw bytes, no codec, so nothing is
 * copied between the socket and the stream or the work connection.
 *
 * <h3>Public connection on the vhost HTTP port (server)</h3>
 * <pre>
 *  socket ─▶ httpCodec ─▶ vhost              after a 101 answer:  socket ─▶ relay
 * </pre>
 * {@code httpCodec} is Netty's {@code HttpServerCodec} (heads parsed, bodies streamed);
 * {@code vhost} routes each request to a proxy's stream, where the server's
 * {@code HttpVhostHandler} encodes it with its own {@code HttpClientCodec}.
 *
 * <h3>Public connection on the vhost HTTPS port (server)</h3>
 * <pre>
 *  socket ─▶ sni ─▶ (routed) relay
 * </pre>
 * {@code sni} reads the ClientHello's server name without terminating TLS, then leaves the
 * bytes it read, and all after them, to {@code relay}.
 */
public final class TunnelPipeline {
    public static final String TLS = "tls";
    public static final String TLS_DETECTOR = "tlsDetector";
    public static final String PREFACE = "preface";
    public static final String FRAME_DECODER = "frameDecoder";
    public static final String FRAME_ENCODER = "frameEncoder";
    public static final String IDLE = "idle";
    public static final String HEARTBEAT = "heartbeat";
    public static final String MUX = "mux";
    public static final String CONTROL = "control";
    public static final String RELAY = "relay";
    public static final String WORK_CONN_ACCEPTOR = "workConnAcceptor";
    public static final String WORK_CONNS = "workConns";
    public static final String WORK_CONN = "workConn";
    public static final String HTTP_CODEC = "httpCodec";
    public static final String VHOST = "vhost";
    public static final String SNI = "sni";

    private static final FrameEncoder ENCODER = new FrameEncoder();

    private TunnelPipeline() {
    }

    /**
     * Adds the part both sides share, after TLS: {@code preface}, {@code frameDecoder},
     * {@code frameEncoder}, {@code idle} (closing after {@code heartbeatTimeout} seconds of
     * silence; -1 disables), {@code heartbeat} and {@code mux}. The caller adds {@code control}.
     */
    public static void addSession(ChannelPipeline p, MuxSession mux, Heartbeat heartbeat, int heartbeatTimeout) {
        p.addLast(PREFACE, new PrefaceDecoder());
        p.addLast(FRAME_DECODER, new FrameDecoder());
        p.addLast(FRAME_ENCODER, ENCODER);
        p.addLast(IDLE, new IdleStateHandler(Math.max(heartbeatTimeout, 0), 0, 0, TimeUnit.SECONDS));
        p.addLast(HEARTBEAT, heartbeat);
        p.addLast(MUX, mux);
    }
}
