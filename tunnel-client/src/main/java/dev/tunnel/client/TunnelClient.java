package dev.tunnel.client;

import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.config.MuxTransportConfig;
import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Goodbye;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.relay.TrafficCounter;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MemoryLimit;
import dev.tunnel.protocol.mux.MuxSettings;
import dev.tunnel.tls.TlsContexts;
import dev.tunnel.protocol.transport.LastWrites;
import dev.tunnel.protocol.transport.KeepAlive;
import dev.tunnel.protocol.transport.Failures;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.runtime.Version;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tunnel client: keeps one tunnel connection to the server, registers the proxies on it,
 * and reconnects (1 s doubling to 20 s, with jitter) when it is lost. With
 * {@code loginFailExit = true}, a first login that fails is final: {@link #firstLogin()}
 * completes exceptionally and the client stops.
 *
 * <p>In pool mode ({@code transport.tcpMux = false}) the control connection carries no streams;
 * each public connection rides its own work connection ({@link WorkConnector}).
 *
 * <p>{@link #close} is graceful: it tells the server it is leaving (the server releases its
 * ports at once), lets connections in flight finish for up to {@code transport.drainTimeout}
 * seconds, then closes.
 *
 * <p>Threads: one group of {@code transport.eventLoopThreads} loops (default one per core); the
 * tunnel connection and every local connection of its streams run on one loop of it; work
 * connections are spread over the group, each with its local connection on its own loop; the
 * plugins' loopback servers (and the connections they open) run on the others.
 */
public final class TunnelClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TunnelClient.class);
    private static final int MAX_BACKOFF_SECONDS = 20;

    /** The outcome of one proxy's registration: a public port, or the server's reason. */
    public record ProxyStatus(int remotePort, String error) {
        public boolean ok() {
            return error.isEmpty();
        }
    }

    private final ClientConfig config;
    private final ClientProxyTypes types;
    private final EventLoopGroup group;
    private final SslContext ssl;
    private final ProxyManager proxies;
    private final List<VisitorTarget> visitors;
    private final ClientIdentity identity;
    private final ClientCredentials credentials;
    private final CompletableFuture<Void> firstLogin = new CompletableFuture<>();
    /** Completes when the server answers GOODBYE: this client's ports are free again. */
    private final CompletableFuture<Void> portsReleased = new CompletableFuture<>();
    private final Map<String, ProxyStatus> status = new ConcurrentHashMap<>();
    private final ChannelGroup localConns = new DefaultChannelGroup("local-connections", GlobalEventExecutor.INSTANCE);
    private volatile boolean closed;
    private volatile Channel channel;
    private int attempts;
    private boolean slowRetry;
    /** The connection that ends next found the server without the PAKE login: made again at once. */
    private boolean pakeFallback;

    private TunnelClient(ClientConfig config, ClientProxyTypes types, EventLoopGroup group, SslContext ssl,
                         ProxyManager proxies) {
        this.config = config;
        this.types = types;
        this.group = group;
        this.ssl = ssl;
        this.proxies = proxies;
        this.visitors = visitorTargets(config);
        this.identity = new ClientIdentity(Version.get(), hostname(), UUID.randomUUID().toString(), config.auth.token,
                config.transport.tcpMux, config.transport.poolCount, types.capabilities(), loginOptions(config));
        String pin = config.transport.tls.serverFingerprint;
        this.credentials = new ClientCredentials(config.user, config.auth.token,
                pin == null || pin.isEmpty() ? null : ChannelBinding.parse(pin),
                new ClientPake(dev.tunnel.protocol.auth.PakeMode.of(config.auth.pake)));
    }

    /** Starts the plugins and the first connection; returns at once (see {@link #firstLogin()}). */
    public static TunnelClient start(ClientConfig config) throws Exception {
        return start(config, ClientProxyTypes.standard());
    }

    /**
     * Starts the plugins and the first connection with the proxy types of {@code types} (a test
     * adds its own to {@link ClientProxyTypes#standard()}); returns at once.
     */
    public static TunnelClient start(ClientConfig config, ClientProxyTypes types) throws Exception {
        ClientConfig.Tls tls = config.transport.tls;
        SslContext ssl = tls.enable
                ? TlsContexts.client(tls.files(),
                tls.trustedCaFile != null && !tls.trustedCaFile.isEmpty())
                : null;
        log.info("I/O transport: {}", Transports.use(config.transport.ioUring));
        if (config.transport.tcpMuxExpressLane != null) {
            log.warn(MuxTransportConfig.EXPRESS_LANE_IGNORED);
        }
        EventLoopGroup group = Transports.newGroup(config.transport.eventLoopThreads, "tunnel-client");
        ProxyManager proxies = new ProxyManager(types, group);
        try {
            for (ProxyConfig p : config.activeProxies()) {
                proxies.add(p);
            }
            if (ssl == null) {
                log.warn("transport.tls.enable = false: the login cannot be bound to a server certificate, so a man in"
                        + " the middle could take this session; use TLS");
                if (config.proxies.stream().anyMatch(p -> p.secretKey != null)) {
                    log.warn("transport.tls.enable = false: the secretKey of stcp/sudp proxies goes to the server in the"
                            + " clear; use TLS");
                }
            }
            TunnelClient client = new TunnelClient(config, types, group, ssl, proxies);
            client.connect();
            return client;
        } catch (Exception e) {
            proxies.close();
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** The config the client runs with. */
    ClientConfig config() {
        return config;
    }

    /** The client's event loops (the admin API listens on them too). */
    EventLoopGroup eventLoops() {
        return group;
    }

    /** Completes when the first login succeeds; exceptionally when it fails and loginFailExit is set. */
    public CompletableFuture<Void> firstLogin() {
        return firstLogin;
    }

    /**
     * Adds a proxy on the running client: it is registered on the live session at once ({@code
     * NEW_PROXY}), or at the next login. Its status appears once the server answers.
     *
     * @throws dev.tunnel.config.ConfigException if the entry is invalid (every problem, as {@code verify} lists them)
     * @throws IllegalArgumentException if a proxy of that name exists
     */
    public void addProxy(ProxyConfig proxy) throws Exception {
        ClientConfig.checkProxy(proxy, types);
        proxies.add(proxy);
    }

    /**
     * Changes proxy {@code proxy.name} on the running client: the server closes the old one (its
     * public side and connections) and starts this one, under the same proxy id.
     *
     * @throws dev.tunnel.config.ConfigException if the entry is invalid
     * @throws IllegalArgumentException if there is no proxy of that name
     */
    public void updateProxy(ProxyConfig proxy) throws Exception {
        ClientConfig.checkProxy(proxy, types);
        status.remove(proxy.name);
        proxies.update(proxy);
    }

    /**
     * Removes proxy {@code name} from the running client: the server closes its public side and
     * the connections it carries ({@code CLOSE_PROXY}). False if there is no such proxy.
     */
    public boolean removeProxy(String name) {
        boolean removed = proxies.remove(name);
        status.remove(name);
        return removed;
    }

    /** The traffic of proxy {@code name} on this side (bytes read from and written to its local app), if it exists. */
    public Optional<TrafficCounter.Snapshot> traffic(String name) {
        ProxyTarget proxy = proxies.byName(name);
        return proxy == null ? Optional.empty() : Optional.of(proxy.traffic().snapshot());
    }

    /** The latest registration outcome of proxy {@code name}, if the server has answered. */
    public Optional<ProxyStatus> proxy(String name) {
        return Optional.ofNullable(status.get(name));
    }

    /**
     * Why proxy {@code name} is withdrawn by its health check ("" before its first check), or
     * empty when it is not withdrawn (no check, or its checks pass).
     */
    public Optional<String> healthFailure(String name) {
        return Optional.ofNullable(proxies.healthFailure(name));
    }

    /** Waits for proxy {@code name} to be registered and returns its public port. */
    public int awaitRemotePort(String name, Duration timeout) throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            ProxyStatus s = status.get(name);
            if (s != null) {
                if (!s.ok()) {
                    throw new IllegalStateException("proxy [" + name + "] refused: " + s.error());
                }
                return s.remotePort();
            }
            if (firstLogin.isCompletedExceptionally()) {
                firstLogin.join();
            }
            Thread.sleep(10);
        }
        throw new TimeoutException("proxy [" + name + "] not registered within " + timeout);
    }

    /**
     * The smoothed round-trip time of the last heartbeat pings on the current session, in
     * milliseconds, or -1 when not connected or before the first answer.
     */
    public double rttMillis() {
        Channel ch = channel;
        MuxSession mux = ch == null ? null : ch.pipeline().get(MuxSession.class);
        long rtt = mux == null ? 0 : mux.rttNanos();
        return rtt == 0 ? -1 : rtt / 1e6;
    }

    /**
     * Seconds between the client's pings: {@code heartbeatInterval}, and in mux mode also the mux
     * keepalive ({@code tcpMuxKeepaliveInterval}), the shorter one applying; -1 for none.
     */
    static int pingInterval(ClientConfig.Transport t) {
        int heartbeat = t.heartbeatInterval > 0 ? t.heartbeatInterval : -1;
        if (!t.tcpMux) {
            return heartbeat;
        }
        return heartbeat > 0 ? Math.min(heartbeat, t.tcpMuxKeepaliveInterval) : t.tcpMuxKeepaliveInterval;
    }

    private void connect() {
        if (closed) {
            return;
        }
        ClientConfig.Transport t = config.transport;
        String serverName = config.effectiveServerName();
        boolean verifyHostname = t.tls.trustedCaFile != null && !t.tls.trustedCaFile.isEmpty();
        java.util.function.Function<io.netty.channel.socket.SocketChannel, io.netty.handler.ssl.SslHandler> tlsHandler =
                ssl == null ? null : ch -> TlsContexts.newClientHandler(ssl, ch.alloc(), serverName, config.serverPort,
                        verifyHostname);
        ClientWorkConn.Settings server = new ClientWorkConn.Settings(
                InetSocketAddress.createUnresolved(config.serverAddr, config.serverPort), tlsHandler, credentials,
                Math.max(1, t.dialServerTimeout) * 1000,
                t.connectServerLocalIP.isEmpty() ? null : new InetSocketAddress(t.connectServerLocalIP, 0),
                t.dialServerKeepalive);
        ClientWorkConn.Settings workConns = t.tcpMux ? null : server;
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(Transports.socketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.max(1, t.dialServerTimeout) * 1000)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(512 * 1024, 2 * 1024 * 1024))
                .handler(new ClientChannelInitializer(tlsHandler, identity, credentials,
                        MuxSettings.configured(t.tcpMuxInitialWindow, t.tcpMuxMaxWindow, t.tcpMuxSessionWindow),
                        pingInterval(t),
                        t.heartbeatTimeout, proxies, new Listener(), localConns, workConns, config.udpPacketSize,
                        visitors));
        KeepAlive.apply(bootstrap, t.dialServerKeepalive);
        if (t.sendBufferSize > 0) {
            bootstrap.option(ChannelOption.SO_SNDBUF, t.sendBufferSize);
        }
        if (t.receiveBufferSize > 0) {
            bootstrap.option(ChannelOption.SO_RCVBUF, t.receiveBufferSize);
        }
        MemoryLimit.process().limit(t.tcpMuxMemoryLimit);
        ChannelFuture connecting = t.connectServerLocalIP.isEmpty()
                ? bootstrap.connect(config.serverAddr, config.serverPort)
                : bootstrap.connect(InetSocketAddress.createUnresolved(config.serverAddr, config.serverPort),
                        new InetSocketAddress(t.connectServerLocalIP, 0));
        channel = connecting.channel();
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                String address = config.serverAddr + ":" + config.serverPort;
                lost("cannot connect to server " + address + ": " + Failures.describeConnect(f.cause(), address));
            }
        });
    }

    /** Reports a lost or failed connection: give up (first login with loginFailExit) or retry later. */
    private synchronized void lost(String reason) {
        channel = null;
        if (closed) {
            return;
        }
        if (pakeFallback) {
            pakeFallback = false;
            log.info("{}; reconnecting at once", reason);
            group.execute(this::connect);
            return;
        }
        if (!firstLogin.isDone() && config.loginFailExit) {
            log.error("login to server failed: {}", reason);
            firstLogin.completeExceptionally(new IllegalStateException(reason));
            return;
        }
        int delay = slowRetry ? MAX_BACKOFF_SECONDS : Math.min(MAX_BACKOFF_SECONDS, 1 << Math.min(attempts, 5));
        attempts++;
        long delayMillis = (long) (delay * 1000 * ThreadLocalRandom.current().nextDouble(0.8, 1.2));
        log.warn("{}; reconnecting in {} ms", reason, delayMillis);
        group.schedule(this::connect, delayMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        closed = true;
        Channel ch = channel;
        if (ch != null && ch.isActive() && firstLogin.isDone() && !firstLogin.isCompletedExceptionally()) {
            ch.writeAndFlush(new ControlFrame(new Goodbye("client shutting down")));
            try {
                // a client started right after this one can then register the same ports at once
                portsReleased.get(2, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException e) {
                log.debug("the server did not confirm the release of this client's ports within 2 s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            int drain = config.transport.drainTimeout;
            if (drain > 0 && !localConns.isEmpty()) {
                log.info("shutting down: waiting up to {} s (transport.drainTimeout) for {} connections to finish",
                        drain, localConns.size());
                if (!localConns.newCloseFuture().awaitUninterruptibly(drain, TimeUnit.SECONDS)) {
                    log.warn("shutting down: closing {} connections still open after {} s", localConns.size(), drain);
                }
            }
        }
        if (ch != null) {
            // The last streams' FINs may still be queued on the loop (see LastWrites).
            LastWrites.flushThenClose(ch, LastWrites.TIMEOUT_MILLIS).awaitUninterruptibly(LastWrites.TIMEOUT_MILLIS + 1000);
        }
        proxies.close();
        // A quiet period, not 0: a connection registered while the loops stop (a work or local
        // connection still being set up) is closed by the next turn instead of outliving its loop.
        // Bounded: a failure in the stop path (seen: a jar replaced under a running process, so
        // classes first needed at shutdown could not load) left every loop thread ended but the
        // group's termination future never completed, and an unbounded wait outlived SIGTERM.
        if (!group.shutdownGracefully(100, 2000, TimeUnit.MILLISECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS)) {
            log.warn("shutting down: the event loops did not report their end within 5 s; exiting anyway");
        }
        firstLogin.completeExceptionally(new IllegalStateException("client closed"));
    }

    private final class Listener implements SessionListener {

        @Override
        public void loggedIn(String sessionId) {
            synchronized (TunnelClient.this) {
                attempts = 0;
                slowRetry = false;
            }
            status.clear();
            log.info("logged in to server {}:{} (session {})", config.serverAddr, config.serverPort, sessionId);
            firstLogin.complete(null);
        }

        @Override
        public void loginRefused(int code, String reason) {
            synchronized (TunnelClient.this) {
                slowRetry = code == LoginResult.AUTH_FAILED;
            }
        }

        @Override
        public void pakeFallback() {
            synchronized (TunnelClient.this) {
                pakeFallback = true;
            }
        }

        @Override
        public void portsReleased() {
            portsReleased.complete(null);
        }

        @Override
        public void proxyResult(NewProxyResult result) {
            ProxyTarget proxy = proxies.get(result.proxyId());
            if (proxy == null || !proxy.name().equals(result.name())) {
                return; // the answer for a proxy removed meanwhile
            }
            status.put(result.name(), new ProxyStatus(result.remotePort(), result.error()));
            if (result.ok()) {
                log.info("proxy [{}] started: public port {} on the server", result.name(), result.remotePort());
            } else {
                log.error("proxy [{}] start error: {}", result.name(), result.error());
            }
        }

        @Override
        public void disconnected(String reason) {
            lost(reason == null ? "server closed the connection" : reason);
        }
    }

    private static List<VisitorTarget> visitorTargets(ClientConfig config) {
        List<VisitorTarget> out = new ArrayList<>();
        int id = 1;
        for (dev.tunnel.client.config.VisitorConfig v : config.activeVisitors()) {
            out.add(new VisitorTarget(id++, v.name, v.type, v.serverUser, v.serverName, v.secretKey, v.bindAddr,
                    v.bindPort));
        }
        return Collections.unmodifiableList(out);
    }

    /** {@code clientID} and {@code metadatas.*}, as the login carries them. */
    private static dev.tunnel.protocol.Options loginOptions(ClientConfig config) {
        dev.tunnel.protocol.Options.Builder b = dev.tunnel.protocol.Options.builder();
        if (!config.clientID.isEmpty()) {
            b.put("clientID", config.clientID);
        }
        return b.putMap("metadatas", config.metadatas).build();
    }

    private static String hostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }

}
