package dev.tunnel.protocol;

import dev.tunnel.protocol.mux.MuxSession;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * Names of every handler in the tunnel's pipelines, and the one picture of each.
 *
 * <h3>Tunnel connection, server side, until the first message</h3>
 * <pre>
 *  socket ─▶ [tls | tlsDetector] ─▶ preface ─▶ controlDecoder ─▶ frameEncoder ─▶ [pake] ─▶ [workConnAcceptor] ─▶ control
 * </pre>
 * {@code tls} is there when {@code transport.tls.force = true}; otherwise {@code tlsDetector}
 * looks at the first byte and installs {@code tls} only for a TLS client. {@code controlDecoder}
 * (a {@link ControlFrameDecoder}) decodes control frames up to {@code LOGIN} or
 * {@code NEW_WORK_CONN} and holds what follows. {@code pake} (unless {@code auth.pake = "off"})
 * answers a {@code PAKE_HELLO} and holds the {@code LOGIN} behind it until its secret is computed;
 * it steps aside at the first other message. In pool mode {@code workConnAcceptor} takes a
 * {@code NEW_WORK_CONN}; anything else goes on to {@code control}, and it removes itself.
 *
 * <h3>Tunnel connection, server side, logged in</h3>
 * <pre>
 *  socket ─▶ [tls] ─▶ frameDecoder ─▶ frameEncoder ─▶ idle ─▶ heartbeat ─▶ [pluginPings] ─▶ mux ─▶ control
 * </pre>
 * On a valid login {@code control} puts the session's handlers in ({@link #addServerSession})
 * and removes {@code controlDecoder}, whose held bytes (the proxies the client sent behind its
 * login) go to {@code frameDecoder}. {@code mux} is the {@link MuxSession}; {@code control}
 * handles proxies. {@code pluginPings} is there when a server plugin subscribed to Ping: it
 * sees the client's pings on their way to {@code mux}, which answers them.
 *
 * <h3>Tunnel connection, client side</h3>
 * <pre>
 *  socket ─▶ [tls] ─▶ preface ─▶ frameDecoder ─▶ frameEncoder ─▶ idle ─▶ heartbeat ─▶ mux ─▶ [workConns] ─▶ control
 * </pre>
 * In pool mode ({@code transport.tcpMux = false}) the client adds {@code workConns}: it opens
 * work connections when the server asks ({@code REQ_WORK_CONN}).
 *
 * <h3>Work connection (pool mode), idle in the pool</h3>
 * <pre>
 *  server:  socket ─▶ [tls] ─▶ frameEncoder ─▶ workConn
 *  client:  socket ─▶ [tls] ─▶ preface ─▶ controlDecoder ─▶ frameEncoder ─▶ workConn
 * </pre>
 * The server's work connection starts as any tunnel connection; {@code workConnAcceptor} sees
 * {@code NEW_WORK_CONN} and puts {@code workConn} in place of {@code control} and of the
 * decoder: the client must send nothing more. The client's {@code controlDecoder} stops behind
 * {@code START_WORK_CONN}.
 *
 * <h3>Work connection (pool mode), after START_WORK_CONN</h3>
 * <pre>
 *  socket ─▶ [tls] ─▶ relay
 * </pre>
 * The codec is removed; the bytes the client's {@code controlDecoder} held behind
 * {@code START_WORK_CONN} go to {@code relay}, a {@link dev.tunnel.protocol.relay.PipeRelay}.
 *
 * <h3>Work connection (pool mode) carrying a udp proxy's datagrams</h3>
 * <pre>
 *  socket ─▶ [tls] ─▶ frameDecoder ─▶ frameEncoder ─▶ idle ─▶ heartbeat ─▶ mux ─▶ carrier
 * </pre>
 * One per udp proxy, in place of {@code workConn} behind {@code START_WORK_CONN}: a private
 * {@link MuxSession} whose streams are the proxy's associations ({@link #addCarrier},
 * {@link dev.tunnel.protocol.udp.CarrierSession}).
 *
 * <h3>Public connection (server) and local-app connection (client)</h3>
 * <pre>
 *  socket ─▶ [bandwidth] ─▶ relay
 * </pre>
 * {@code bandwidth} (a {@link dev.tunnel.protocol.relay.ReadLimiter}) paces the socket's reads
 * when its proxy sets {@code transport.bandwidthLimit}: on the local-app connection in
 * {@code "client"} mode, on the public connection in {@code "server"} mode.
 * {@code relay} is a {@link dev.tunnel.protocol.relay.StreamRelay} in mux mode, a
 * {@link dev.tunnel.protocol.relay.PipeRelay} in pool mode: raw bytes, no codec, so nothing is
 * copied between the socket and the stream or the work connection. Every such socket gets its
 * options from {@link dev.tunnel.protocol.relay.RelayedSockets}.
 *
 * <h3>Public connection on the vhost HTTP port (server)</h3>
 * <pre>
 *  socket ─▶ httpCodec ─▶ vhost              after a 101 answer:  socket ─▶ relay
 * </pre>
 * {@code httpCodec} is Netty's {@code HttpRequestDecoder} (heads parsed, bodies streamed);
 * {@code vhost} routes each request to a proxy's stream, re-encoded with Netty's request
 * encoder, and writes the app's responses back as the bytes they arrived in (framed by Netty's
 * response decoder, called directly beside the stream; see the server's {@code ResponseReader}).
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
    public static final String CONTROL_DECODER = "controlDecoder";
    public static final String FRAME_DECODER = "frameDecoder";
    public static final String FRAME_ENCODER = "frameEncoder";
    public static final String IDLE = "idle";
    public static final String HEARTBEAT = "heartbeat";
    public static final String MUX = "mux";
    public static final String PLUGIN_PINGS = "pluginPings";
    public static final String CONTROL = "control";
    /** The server's half of the PAKE login, in front of the handlers that take a connection's first message. */
    public static final String PAKE = "pake";
    public static final String RELAY = "relay";
    public static final String BANDWIDTH = "bandwidth";
    public static final String WORK_CONN_ACCEPTOR = "workConnAcceptor";
    public static final String WORK_CONNS = "workConns";
    public static final String WORK_CONN = "workConn";
    public static final String CARRIER = "carrier";
    public static final String HTTP_CODEC = "httpCodec";
    public static final String VHOST = "vhost";
    public static final String SNI = "sni";

    private static final FrameEncoder ENCODER = new FrameEncoder();

    private TunnelPipeline() {
    }

    /**
     * The client's tunnel connection, after TLS: {@code preface}, {@code frameDecoder},
     * {@code frameEncoder}, {@code idle} (closing after {@code heartbeatTimeout} seconds of
     * silence; -1 disables), {@code heartbeat} and {@code mux}. The caller adds {@code control}.
     */
    public static void addSession(ChannelPipeline p, MuxSession mux, Heartbeat heartbeat, int heartbeatTimeout) {
        p.addLast(PREFACE, new PrefaceDecoder());
        p.addLast(FRAME_DECODER, new FrameDecoder());
        p.addLast(FRAME_ENCODER, ENCODER);
        p.addLast(IDLE, idle(heartbeatTimeout));
        p.addLast(HEARTBEAT, heartbeat);
        p.addLast(MUX, mux);
    }

    /**
     * A connection the server accepted, after TLS: {@code preface}, {@code controlDecoder} (up to
     * {@code LOGIN} or {@code NEW_WORK_CONN}) and {@code frameEncoder}. The caller adds the rest.
     */
    public static void addServerHandshake(ChannelPipeline p) {
        p.addLast(PREFACE, new PrefaceDecoder());
        p.addLast(CONTROL_DECODER, new ControlFrameDecoder(
                m -> m instanceof ControlMessage.Login || m instanceof ControlMessage.NewWorkConn));
        p.addLast(FRAME_ENCODER, ENCODER);
    }

    /**
     * The server's connection is logging in: puts {@code frameDecoder} after
     * {@code controlDecoder}, and {@code idle}, {@code heartbeat} and {@code mux} before
     * {@code control}. The caller removes {@code controlDecoder} ({@link #endHandshake}) once it is
     * ready for the frames the client sent behind its login. Event loop only.
     */
    public static void addServerSession(ChannelPipeline p, MuxSession mux, Heartbeat heartbeat, int heartbeatTimeout) {
        p.addAfter(CONTROL_DECODER, FRAME_DECODER, new FrameDecoder());
        p.addBefore(CONTROL, IDLE, idle(heartbeatTimeout));
        p.addBefore(CONTROL, HEARTBEAT, heartbeat);
        p.addBefore(CONTROL, MUX, mux);
    }

    /**
     * Removes {@code controlDecoder}: the bytes it held (the frames behind a login, a public
     * connection's bytes behind {@code START_WORK_CONN}) go to the next handler. Event loop only.
     */
    public static void endHandshake(ChannelPipeline p) {
        p.remove(CONTROL_DECODER);
    }

    /**
     * The client's work connection, after TLS: {@code preface}, {@code controlDecoder} (up to
     * {@code START_WORK_CONN}) and {@code frameEncoder}. The caller adds {@code workConn}.
     */
    public static void addClientWorkConn(ChannelPipeline p) {
        p.addLast(PREFACE, new PrefaceDecoder());
        p.addLast(CONTROL_DECODER, new ControlFrameDecoder(m -> m instanceof ControlMessage.StartWorkConn));
        p.addLast(FRAME_ENCODER, ENCODER);
    }

    /**
     * A work connection becomes a carrier session: {@code workConn} and {@code frameEncoder}
     * (where still there) give way to {@code frameDecoder}, {@code frameEncoder}, {@code idle},
     * {@code heartbeat}, {@code mux} and {@code carrier} at the end (behind a
     * {@code controlDecoder} the caller removes afterwards). Event loop only.
     */
    public static void addCarrier(ChannelPipeline p, MuxSession mux, Heartbeat heartbeat, int timeoutSeconds,
                                  io.netty.channel.ChannelHandler carrier) {
        p.remove(WORK_CONN);
        if (p.get(FRAME_ENCODER) != null) {
            p.remove(FRAME_ENCODER);
        }
        p.addLast(FRAME_DECODER, new FrameDecoder());
        p.addLast(FRAME_ENCODER, ENCODER);
        p.addLast(IDLE, idle(timeoutSeconds));
        p.addLast(HEARTBEAT, heartbeat);
        p.addLast(MUX, mux);
        p.addLast(CARRIER, carrier);
    }

    private static IdleStateHandler idle(int heartbeatTimeout) {
        return new IdleStateHandler(Math.max(heartbeatTimeout, 0), 0, 0, TimeUnit.SECONDS);
    }
}
