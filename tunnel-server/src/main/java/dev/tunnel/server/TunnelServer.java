package dev.tunnel.server;

import dev.tunnel.config.MuxTransportConfig;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.PakeMode;
import dev.tunnel.protocol.mux.MemoryLimit;
import dev.tunnel.protocol.mux.MuxSettings;
import dev.tunnel.tls.TlsContexts;
import dev.tunnel.tls.TlsFilesConfig;
import dev.tunnel.protocol.transport.KeepAlive;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.server.config.ServerConfig;
import dev.tunnel.server.web.ServerApi;
import dev.tunnel.server.web.ServerStats;
import dev.tunnel.web.WebServer;
import dev.tunnel.runtime.BindFailures;
import dev.tunnel.server.proxy.ServerEnvironment;
import dev.tunnel.server.proxy.ServerProxyType;
import dev.tunnel.server.plugin.ServerPlugins;
import dev.tunnel.server.proxy.ServerProxyTypes;
import dev.tunnel.runtime.Version;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tunnel server: listens on {@code bindAddr:bindPort} for clients, and opens public ports
 * for the proxies they register. {@link #start} returns once the port is bound.
 *
 * <p>Threads: one group of {@code transport.eventLoopThreads} loops (default one per core). The
 * tunnel port's listener sits on one of them (clients log in rarely; a loop of its own would idle);
 * each loop runs some client sessions together with their public ports and all their public
 * connections.
 *
 * <p>{@link #close} is graceful: it stops accepting clients and public connections (releasing
 * every port), lets public connections in flight finish for up to {@code transport.drainTimeout}
 * seconds, then closes everything.
 */
public final class TunnelServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TunnelServer.class);

    private final EventLoopGroup workerGroup;
    private final Channel listener;
    private final ServerContext context;
    private final int drainTimeoutSeconds;
    private final WebServer web;

    private TunnelServer(EventLoopGroup workerGroup, Channel listener, ServerContext context,
                         int drainTimeoutSeconds, WebServer web) {
        this.web = web;
        this.workerGroup = workerGroup;
        this.listener = listener;
        this.context = context;
        this.drainTimeoutSeconds = drainTimeoutSeconds;
    }

    /** Binds the tunnel port and starts serving the standard proxy types; throws with a clear message if it cannot. */
    public static TunnelServer start(ServerConfig config) throws Exception {
        return start(config, ServerProxyTypes.standard());
    }

    /**
     * Binds the tunnel port and starts serving the proxy types of {@code types} (a test adds its
     * own to {@link ServerProxyTypes#standard()}); throws with a clear message if it cannot.
     */
    public static TunnelServer start(ServerConfig config, ServerProxyTypes types) throws Exception {
        TlsContexts.ServerTls tls = TlsContexts.server(config.transport.tls.files(),
                TlsFilesConfig.path(config.transport.tls.selfSignedDir));
        SslContext ssl = tls.context();
        log.info("I/O transport: {}", Transports.use(config.transport.ioUring));
        if (config.transport.tcpMuxExpressLane != null) {
            log.warn(MuxTransportConfig.EXPRESS_LANE_IGNORED);
        }
        EventLoopGroup workerGroup = Transports.newGroup(config.transport.eventLoopThreads, "tunnel-worker");
        try {
            PortRegistry ports = new PortRegistry();
            Credentials credentials = new Credentials(config);
            LoginAuthenticator authenticator = new LoginAuthenticator(credentials, ChannelBinding.of(tls.certificate()),
                    PakeMode.of(config.auth.pake));
            LoginThrottle throttle = new LoginThrottle(config.auth.maxFailedLogins,
                    TimeUnit.SECONDS.toMillis(config.auth.failedLoginBlockSeconds), System::currentTimeMillis);
            ServerStats stats = new ServerStats(Clock.systemDefaultZone());
            ChannelGroup publicConns = new DefaultChannelGroup("public-connections", GlobalEventExecutor.INSTANCE);
            ServerContext.PoolSettings pool = new ServerContext.PoolSettings(config.transport.maxPoolCount,
                    config.userConnTimeout, config.transport.tcpMuxKeepaliveInterval);
            ServerContext context = new ServerContext(config.auth.token, config.transport.tcpMux, ports,
                    config.effectiveProxyBindAddr(), Version.get(), config.transport.loginTimeout, credentials,
                    authenticator, throttle, config.transport.maxStreamsPerClient, pool, new SessionRegistry(),
                    publicConns, types, new LoginThrottle(config.auth.maxFailedLogins,
                    TimeUnit.SECONDS.toMillis(config.auth.failedLoginBlockSeconds), System::currentTimeMillis), stats,
                    new ConnectionCaps(config.transport.maxConnectionsPerProxy, config.transport.maxConnectionsPerIP,
                            stats::connectionRefused), config.detailedErrorsToClient,
                    ServerPlugins.of(config.httpPlugins, workerGroup),
                    new ProxyNames(config.maxProxiesPerClient));
            openTypes(types, new ServerEnvironment(config, workerGroup, publicConns, stats));
            MuxSettings mux = MuxSettings.configured(config.transport.tcpMuxInitialWindow,
                    config.transport.tcpMuxMaxWindow, config.transport.tcpMuxSessionWindow);
            MemoryLimit.process().limit(config.transport.tcpMuxMemoryLimit);
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(workerGroup)
                    .channel(Transports.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, Listeners.BACKLOG)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(512 * 1024, 2 * 1024 * 1024))
                    .childHandler(new ServerChannelInitializer(context, ssl, config.transport.tls.force, mux,
                            config.transport.heartbeatTimeout, config.transport.tcpMuxKeepaliveInterval,
                            new ConnectionGate(throttle, new HandshakeThrottle(
                            config.transport.handshakeRatePerIP, config.transport.handshakeBurstPerIP,
                            config.transport.handshakeRate, ConnectionGate.MAX_WAIT_NANOS, System::nanoTime), context.sessions())));
            KeepAlive.applyToChildren(bootstrap, config.transport.tcpKeepalive);
            if (config.transport.sendBufferSize > 0) {
                bootstrap.childOption(ChannelOption.SO_SNDBUF, config.transport.sendBufferSize);
            }
            if (config.transport.receiveBufferSize > 0) {
                bootstrap.childOption(ChannelOption.SO_RCVBUF, config.transport.receiveBufferSize);
            }
            Channel listener;
            try {
                listener = bootstrap.bind(config.bindAddr, config.bindPort).sync().channel();
            } catch (Exception e) {
                String reason = BindFailures.addressInUse(e) ? "address in use" : e.getMessage();
                throw new IllegalStateException("failed to bind on [" + config.bindAddr + ":" + config.bindPort + "]: "
                        + reason, e);
            }
            log.info("tunnel server {} listening on {} ({} transport, {} mode, TLS {} with {})", Version.get(),
                    listener.localAddress(), Transports.name(), config.transport.tcpMux ? "tcpMux" : "pool",
                    config.transport.tls.force ? "required" : "optional", TlsContexts.providerName());
            if (credentials.sharedTokenEmpty()) {
                log.warn("auth.token is empty: any client can log in and open ports");
            }
            log.info("logins are bound to the server certificate {} ({} user(s) with their own token; PAKE login {})",
                    authenticator.ownBinding().fingerprint(), config.users.size(), config.auth.pake);
            WebServer web = null;
            if (config.webServer.enabled()) {
                try {
                    web = WebServer.start(config.webServer.settings(), new ServerApi(config, stats, Version.get(), types.names()).routes(),
                            workerGroup, Transports.serverChannel(), "dashboard");
                } catch (RuntimeException e) {
                    listener.close().syncUninterruptibly();
                    throw e;
                }
                // bytes land in the minute and the day they moved in, even when nobody reads the API
                workerGroup.next().scheduleAtFixedRate(stats::sampleAll, ServerStats.SERVER_STEP,
                        ServerStats.SERVER_STEP, TimeUnit.SECONDS);
            }
            return new TunnelServer(workerGroup, listener, context, config.transport.drainTimeout, web);
        } catch (Exception e) {
            types.all().forEach(ServerProxyType::close);
            workerGroup.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** Lets each type open what it shares between sessions; on a failure the caller closes every type. */
    private static void openTypes(ServerProxyTypes types, ServerEnvironment environment) throws Exception {
        for (ServerProxyType type : types.all()) {
            type.open(environment);
        }
    }

    /** The tunnel port actually bound (useful with bindPort = 0 in tests). */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Event loops serving the tunnel port and the sessions ({@code transport.eventLoopThreads}). */
    int eventLoops() {
        int n = 0;
        for (Object ignored : workerGroup) {
            n++;
        }
        return n;
    }

    /** Blocks until the server is closed. */
    public void awaitClose() throws InterruptedException {
        listener.closeFuture().sync();
    }

    /** Every running proxy of every session, with its traffic; any thread (the dashboard, tests). */
    public List<ProxyStatus> proxies() {
        List<ProxyStatus> out = new ArrayList<>();
        for (ClientSession session : context.sessions().all()) {
            out.addAll(session.proxyStatus());
        }
        return out;
    }

    /** Logged-in client sessions right now (for tests and status). */
    public int sessionCount() {
        return context.sessions().all().size();
    }

    @Override
    public void close() {
        if (web != null) {
            web.close();
        }
        listener.close().syncUninterruptibly();
        List<ClientSession> sessions = context.sessions().all();
        sessions.forEach(ClientSession::stopAccepting);
        context.types().all().forEach(ServerProxyType::close);
        if (drainTimeoutSeconds > 0 && !context.publicConns().isEmpty()) {
            log.info("shutting down: waiting up to {} s (transport.drainTimeout) for {} public connections to finish",
                    drainTimeoutSeconds, context.publicConns().size());
            if (!context.publicConns().newCloseFuture().awaitUninterruptibly(drainTimeoutSeconds, TimeUnit.SECONDS)) {
                log.warn("shutting down: closing {} public connections still open after {} s",
                        context.publicConns().size(), drainTimeoutSeconds);
            }
        }
        sessions.forEach(ClientSession::closeConnection);
        // A quiet period, not 0: a connection registered while the loops stop (a work or local
        // connection still being set up) is closed by the next turn instead of outliving its loop.
        // Bounded: a failure in the stop path (seen: a jar replaced under a running process, so
        // classes first needed at shutdown could not load) left every loop thread ended but the
        // group's termination future never completed, and an unbounded wait outlived SIGTERM.
        if (!workerGroup.shutdownGracefully(100, 2000, TimeUnit.MILLISECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS)) {
            log.warn("shutting down: the event loops did not report their end within 5 s; exiting anyway");
        }
        log.info("tunnel server stopped ({} client sessions closed)", sessions.size());
    }
}
