package dev.tunnel.client;

import dev.tunnel.runtime.BurstLog;
import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.ReqWorkConn;
import dev.tunnel.client.proxy.StreamDialer;
import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.udp.CarrierSession;
import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.tls.TlsSessions;
import dev.tunnel.protocol.transport.Failures;
import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import dev.tunnel.protocol.transport.KeepAlive;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pool mode ({@code transport.tcpMux = false}), on the control connection between {@code mux}
 * and {@code control}: notes the session id from the login result and opens work connections
 * when the server asks ({@code REQ_WORK_CONN}), each a new TCP (and TLS) connection to the
 * server, handled by {@link ClientWorkConn}: one per nonce when the request carries nonces issued
 * ahead, each connection proving itself with its own. When the server starts one, it connects to the
 * proxy's local app and joins both with a {@link PipeRelay}; if the local app is down the work
 * connection is closed (the public connection closes) and the failure is logged once per burst,
 * per proxy, as {@link LocalConnector} does. A udp proxy's work connection instead carries a
 * private mux session of its associations ({@link CarrierSession}).
 *
 * <p>Idle work connections belong to the control session: when it ends they are closed; those
 * carrying a connection go on until it is done ({@link #busyCount}: a session that leaves a
 * server waits for them up to its drain timeout, then {@link #closeBusy closes} them).
 *
 * <p>Threading: runs on the control connection's event loop. Work connections are spread over
 * the client's event-loop group (TLS handshakes of replacements then do not stall the loop that
 * carries a busy pipe); each one's local connection is registered on the work connection's own
 * loop, so a pipe on the client never crosses threads. What the work connections share here
 * (the idle set, the failure logs) is thread-safe.
 */
final class WorkConnector extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(WorkConnector.class);
    /** The most connections one request may ask for (the server asks for its pool bound, at most 100). */
    static final int MAX_PER_REQUEST = 100;

    private final ClientWorkConn.Settings settings;
    private final ProxyManager proxies;
    private final ChannelGroup localConns;
    private final int udpPacketSize;
    private final Map<Integer, BurstLog> failures = new ConcurrentHashMap<>();
    private final Set<Channel> idle = ConcurrentHashMap.newKeySet();
    /** Work connections the server started (carrying a public connection) and not yet closed. */
    private final Set<Channel> busy = ConcurrentHashMap.newKeySet();
    private final BurstLog connectFailures = new BurstLog(log);
    private final TlsSessions tls = new TlsSessions();
    private Channel control;
    private String sessionId;
    /** What the session's work connections prove themselves with (set with {@code sessionId}). */
    private String proofKey;
    private ChannelBinding loginBinding;
    /**
     * The session's first request (its initial pool) has been served. Its connections offer the
     * default key-exchange groups: the login left few session tickets, and they bring more; later
     * connections expect to resume and offer X25519 alone ({@link TlsSessions}).
     */
    private boolean filled;

    /** @param udpPacketSize the client's {@code udpPacketSize}, for udp proxies' carrier sessions */
    WorkConnector(ClientWorkConn.Settings settings, ProxyManager proxies, ChannelGroup localConns, int udpPacketSize) {
        this.udpPacketSize = udpPacketSize;
        this.settings = settings;
        this.proxies = proxies;
        this.localConns = localConns;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ControlFrame frame) {
            if (frame.message() instanceof LoginResult result && result.ok()) {
                try {
                    // work connections must see the certificate this login is proven for (checked by the control handler)
                    loginBinding = LoginExchange.seenBinding(ctx.pipeline().get(SslHandler.class));
                    control = ctx.channel();
                    sessionId = result.sessionId();
                    proofKey = ctx.channel().attr(LoginExchange.PROOF_KEY).get();
                } catch (SSLPeerUnverifiedException e) {
                    log.debug("{} no server certificate: no work connections", ctx.channel());
                }
            } else if (frame.message() instanceof ReqWorkConn request && sessionId != null) {
                if (ctx.channel().isActive()) { // not after the control handler refused the login result
                    open(Math.max(0, Math.min(request.count(), MAX_PER_REQUEST)), filled, request.nonces());
                    filled = true;
                }
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** How the TLS handshakes of the work connections went (full or resumed). */
    TlsSessions tlsSessions() {
        return tls;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (sessionId != null && tls.full() + tls.resumed() > 0) {
            log.info("{} session {} ended: work connections: {}", ctx.channel(), sessionId, tls);
        }
        sessionId = null;
        filled = false;
        for (Channel work : idle.toArray(new Channel[0])) {
            work.close();
        }
        idle.clear();
        ctx.fireChannelInactive();
    }

    /**
     * Opens {@code count} work connections; {@code expectResumption}: they offer X25519 alone;
     * {@code nonces}: issued ahead, one per connection, or empty.
     */
    private void open(int count, boolean expectResumption, List<String> nonces) {
        for (int i = 0; i < count; i++) {
            ChannelInitializerImpl init = new ChannelInitializerImpl(new SessionKey(sessionId, proofKey), loginBinding, expectResumption,
                    i < nonces.size() ? nonces.get(i) : null);
            Bootstrap bootstrap = new Bootstrap()
                    .group(control.eventLoop().parent())
                    .channel(Transports.socketChannel())
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, settings.connectTimeoutMillis())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .handler(init);
            KeepAlive.apply(bootstrap, settings.keepalive());
            ChannelFuture connecting = settings.localAddress() == null ? bootstrap.connect(settings.server())
                    : bootstrap.connect(settings.server(), settings.localAddress());
            Channel work = connecting.addListener(f -> {
                if (!f.isSuccess()) {
                    connectFailures.warn("cannot open a work connection to {}: {}", settings.server(),
                            f.cause().getMessage());
                }
            }).channel();
            idle.add(work);
            work.closeFuture().addListener(f -> idle.remove(work));
        }
    }

    private final ClientWorkConn.Starter starter = new ClientWorkConn.Starter() {
        @Override
        public void start(Channel work, PipeRelay workEnd, int proxyId, String source) {
            WorkConnector.this.start(work, workEnd, proxyId, source);
        }

        @Override
        public boolean startCarrier(Channel work, int proxyId) {
            return WorkConnector.this.startCarrier(work, proxyId);
        }

        @Override
        public void handshaken(SslHandler workTls) {
            tls.record(workTls);
        }

        @Override
        public void reopenWithDefaultGroups(Channel abandoned, String issuedNonce) {
            tls.abandoned();
            idle.remove(abandoned);
            control.eventLoop().execute(() -> {
                if (sessionId != null && control.isActive()) {
                    open(1, false, issuedNonce == null ? List.of() : List.of(issuedNonce));
                }
            });
        }
    };

    /** Builds a work connection's pipeline; see {@link ClientWorkConn}. */
    private final class ChannelInitializerImpl extends ChannelInitializer<SocketChannel> {
        private final SessionKey session;
        private final ChannelBinding loginBinding;
        private final boolean expectResumption;
        private final String issuedNonce;

        ChannelInitializerImpl(SessionKey session, ChannelBinding loginBinding, boolean expectResumption,
                               String issuedNonce) {
            this.issuedNonce = issuedNonce;
            this.session = session;
            this.loginBinding = loginBinding;
            this.expectResumption = expectResumption;
        }

        @Override
        protected void initChannel(SocketChannel ch) {
            ClientWorkConn.initPipeline(ch, settings, session, loginBinding, starter, expectResumption, issuedNonce);
        }
    }

    /**
     * If {@code proxyId} is a udp proxy, {@code work} becomes its carrier session: each stream the
     * server opens on it is an association, served by the proxy's {@link StreamDialer} with local
     * sockets on the work connection's loop. False for other proxies.
     */
    private boolean startCarrier(Channel work, int proxyId) {
        ProxyTarget proxy = proxies.get(proxyId);
        if (proxy == null || !(proxy.dialer() instanceof StreamDialer datagrams)) {
            return false;
        }
        idle.remove(work);
        CarrierSession.install(work, false, (stream, streamProxyId, source) -> {
            if (streamProxyId != proxyId) {
                log.warn("{} server opened a stream for proxy id {} on the work connection of proxy [{}]: refused",
                        work, streamProxyId, proxy.name());
                stream.reset(ResetCode.REFUSED);
                return;
            }
            datagrams.accept(stream, work.eventLoop(), source, localConns, udpPacketSize);
        }, () -> log.debug("{} proxy [{}]: work connection carrying its datagrams closed", work, proxy.name()));
        log.debug("{} proxy [{}]: datagrams ride this work connection", work, proxy.name());
        return true;
    }

    /** Work connections carrying a public connection now (a leaving session waits for them; any thread). */
    int busyCount() {
        return busy.size();
    }

    /** Closes the work connections still carrying a public connection (a drain that timed out). */
    void closeBusy() {
        for (Channel work : busy.toArray(new Channel[0])) {
            work.close();
        }
    }

    /** The server started {@code work} for {@code proxyId}: connect to the local app and join the two. */
    private void start(Channel work, PipeRelay workEnd, int proxyId, String source) {
        idle.remove(work);
        if (busy.add(work)) {
            work.closeFuture().addListener(f -> busy.remove(work));
        }
        ProxyTarget proxy = proxies.get(proxyId);
        if (proxy == null) {
            log.warn("server started a work connection for unknown proxy id {}: closed", proxyId);
            work.close();
            return;
        }
        PipeRelay[] localEnd = new PipeRelay[1];
        ChannelInitializer<Channel> attach = new ChannelInitializer<>() { // a TCP or a Unix socket
            @Override
            protected void initChannel(Channel ch) {
                localEnd[0] = PipeRelay.attach(ch).counted(proxy.traffic());
            }
        };
        Channel local = proxy.dialer().connect(work.eventLoop(), attach).addListener(f -> {
            if (f.isSuccess()) {
                PipeRelay.join(workEnd, localEnd[0]);
            } else {
                work.close();
                failures.computeIfAbsent(proxyId, id -> new BurstLog(log)).warn(
                        "proxy [{}] cannot reach local app {}: {} (public connection from {} closed)",
                        proxy.name(), proxy.dialer().describe(), Failures.describeConnect(f.cause(), proxy.dialer().describe()), source);
            }
        }).channel();
        localConns.add(local);
        proxy.traffic().track(local);
    }
}
