package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.Heartbeat;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxSettings;
import dev.tunnel.protocol.mux.StreamAcceptor;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A private {@link MuxSession} on one pool-mode work connection, carrying the streams of one
 * proxy (a udp proxy's associations), so that pool mode moves datagrams with the same framing,
 * flow control and entrance queues as mux mode: a user of the mux, through its public API. Both ends install it right behind
 * {@code START_WORK_CONN}; see {@link TunnelPipeline} for the picture. The last handler of the
 * work connection: it runs {@code onClose} once when the connection is gone, and closes it on an
 * error.
 *
 * <h3>Settings</h3>
 * Nothing is negotiated: both ends use {@link MuxSettings#defaults()} and fold OPENs with their
 * first bytes (a carrier exists only between ends of this version). The server opens the
 * streams; the client only accepts them. Each end pings every {@value #PING_SECONDS} s (frp's udp
 * work connection pings every 30 s) and closes the connection after {@value #TIMEOUT_SECONDS} s
 * without a byte from the other, so a connection a NAT or a dead peer dropped is replaced.
 *
 * <p>Threading: the work connection's event loop; the sockets of its streams must be registered
 * on it too.
 */
public final class CarrierSession extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(CarrierSession.class);
    public static final int PING_SECONDS = 30;
    public static final int TIMEOUT_SECONDS = 90;

    private final Runnable onClose;
    private boolean closed;

    private CarrierSession(Runnable onClose) {
        this.onClose = onClose;
    }

    /**
     * Turns {@code work} (on its loop; {@code START_WORK_CONN} sent or read, its handshake
     * handlers other than {@code controlDecoder} still in place) into a started carrier session.
     * The caller removes {@code controlDecoder} afterwards where one holds bytes for it.
     *
     * @param server   true on the tunnel server (it opens the streams)
     * @param acceptor the client's acceptor of the server's streams; null on the server
     * @param onClose  runs once on the work connection's loop when it has closed
     */
    public static MuxSession install(Channel work, boolean server, StreamAcceptor acceptor, Runnable onClose) {
        assert work.eventLoop().inEventLoop();
        MuxSettings settings = MuxSettings.defaults();
        MuxSession mux = new MuxSession(server, settings, acceptor);
        mux.peerMayClose();
        Heartbeat heartbeat = new Heartbeat(mux, PING_SECONDS, TIMEOUT_SECONDS);
        CarrierSession tail = new CarrierSession(onClose);
        TunnelPipeline.addCarrier(work.pipeline(), mux, heartbeat, TIMEOUT_SECONDS, tail);
        mux.start(settings.initialWindow());
        mux.foldOpens(true);
        heartbeat.start(work.pipeline().context(heartbeat));
        work.config().setAutoRead(true);
        if (!work.isActive()) {
            tail.ended();
        }
        return mux;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        ended();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("{} carrier session failed: {}", ctx.channel(), cause.toString());
        ctx.close();
    }

    private void ended() {
        if (!closed) {
            closed = true;
            onClose.run();
        }
    }
}
