package dev.tunnel.client;

import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.config.MuxTransportConfig;
import dev.tunnel.protocol.relay.TrafficCounter;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.transport.LastWrites;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.runtime.Version;
import dev.tunnel.tls.TlsContexts;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tunnel client: keeps a tunnel connection to its server (or to each of its servers, or to
 * one at a time: {@link ServerSet}), registers the proxies on it, and reconnects when it is lost
 * ({@link ServerSession}). With {@code loginFailExit = true}, a first login that fails (on every
 * server) is final: {@link #firstLogin()} completes exceptionally and the client stops.
 *
 * <p>In pool mode ({@code transport.tcpMux = false}) the control connection carries no streams;
 * each public connection rides its own work connection ({@link WorkConnector}).
 *
 * <p>{@link #close} is graceful: it tells each server it is leaving (each releases its
 * ports at once), lets connections in flight finish for up to {@code transport.drainTimeout}
 * seconds, then closes.
 *
 * <p>Threads: one group of {@code transport.eventLoopThreads} loops (default one per core), or
 * the caller's ({@link #start(ClientConfig, ClientProxyTypes, EventLoopGroup)}); each
 * tunnel connection (one per server) and the local connections of its streams run on one loop; work
 * connections are spread over the group, each with its local connection on its own loop; the
 * plugins' loopback servers (and the connections they open) run on the others.
 */
public final class TunnelClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TunnelClient.class);

    /** The outcome of one proxy's registration: a public port, or the server's reason. */
    public record ProxyStatus(int remotePort, String error) {
        public boolean ok() {
            return error.isEmpty();
        }
    }

    private final ClientConfig config;
    private final ClientProxyTypes types;
    private final EventLoopGroup group;
    /** The group was made for this client (else the caller's, left running by {@link #close}). */
    private final boolean ownsGroup;
    private final ProxyManager proxies;
    private final ProxyResults results;
    private final ServerSet servers;
    private final CompletableFuture<Void> firstLogin = new CompletableFuture<>();
    private final ChannelGroup localConns = new DefaultChannelGroup("local-connections", GlobalEventExecutor.INSTANCE);

    private TunnelClient(ClientConfig config, ClientProxyTypes types, EventLoopGroup group, boolean ownsGroup,
                         SslContext ssl, ProxyManager proxies) {
        this.config = config;
        this.types = types;
        this.group = group;
        this.ownsGroup = ownsGroup;
        this.proxies = proxies;
        this.results = new ProxyResults(proxies);
        ClientIdentity identity = new ClientIdentity(Version.get(), hostname(), UUID.randomUUID().toString(),
                config.auth.token, config.transport.tcpMux, config.transport.poolCount, types.capabilities(),
                loginOptions(config));
        VisitorOwner visitors = new VisitorOwner(visitorTargets(config), localConns, config.udpPacketSize);
        ServerDialer dialer = new ServerDialer(config, group, ssl, identity, proxies, localConns, visitors);
        this.servers = new ServerSet(config.serverEndpoints(), config.failover(), config.loginFailExit,
                config.transport.drainTimeout * 1000L, dialer, group, firstLogin, results);
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
        return start(config, types, null);
    }

    /**
     * As {@link #start(ClientConfig, ClientProxyTypes)}, on the caller's event loops: many clients
     * in one process (a load driver such as the bench's {@code LoginStorm}) then share a few
     * threads and their buffers instead of holding a group each. {@code transport.eventLoopThreads}
     * is not used; {@link #close} leaves the group running (its owner shuts it down). Null: a
     * group of the client's own, as the other {@code start} makes.
     */
    public static TunnelClient start(ClientConfig config, ClientProxyTypes types, EventLoopGroup sharedGroup)
            throws Exception {
        ClientConfig.Tls tls = config.transport.tls;
        SslContext ssl = tls.enable
                ? TlsContexts.client(tls.files(),
                tls.trustedCaFile != null && !tls.trustedCaFile.isEmpty())
                : null;
        log.info("I/O transport: {}", Transports.use(config.transport.ioUring));
        if (config.transport.tcpMuxExpressLane != null) {
            log.warn(MuxTransportConfig.EXPRESS_LANE_IGNORED);
        }
        boolean ownsGroup = sharedGroup == null;
        EventLoopGroup group = ownsGroup ? Transports.newGroup(config.transport.eventLoopThreads, "tunnel-client")
                : sharedGroup;
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
            TunnelClient client = new TunnelClient(config, types, group, ownsGroup, ssl, proxies);
            client.servers.start();
            return client;
        } catch (Exception e) {
            proxies.close();
            if (ownsGroup) {
                group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            }
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
        results.forget(proxy.name);
        proxies.update(proxy);
    }

    /**
     * Removes proxy {@code name} from the running client: the server closes its public side and
     * the connections it carries ({@code CLOSE_PROXY}). False if there is no such proxy.
     */
    public boolean removeProxy(String name) {
        boolean removed = proxies.remove(name);
        results.forget(name);
        return removed;
    }

    /** The traffic of proxy {@code name} on this side (bytes read from and written to its local app), if it exists. */
    public Optional<TrafficCounter.Snapshot> traffic(String name) {
        ProxyTarget proxy = proxies.byName(name);
        return proxy == null ? Optional.empty() : Optional.of(proxy.traffic().snapshot());
    }

    /** The latest registration outcome of proxy {@code name}, if the server has answered. */
    public Optional<ProxyStatus> proxy(String name) {
        return Optional.ofNullable(results.get(name));
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
        return results.awaitRemotePort(name, timeout, firstLogin);
    }

    /** Each server's session, in the order of the config: address, state, since when, last error. */
    public List<ServerStatus> servers() {
        return servers.status();
    }

    /**
     * The smoothed round-trip time of the last heartbeat pings on the first live session, in
     * milliseconds, or -1 when not connected or before the first answer.
     */
    public double rttMillis() {
        MuxSession mux = servers.firstMux();
        long rtt = mux == null ? 0 : mux.rttNanos();
        return rtt == 0 ? -1 : rtt / 1e6;
    }

    @Override
    public void close() {
        if (firstLogin.isDone() && !firstLogin.isCompletedExceptionally()) {
            servers.goodbye();
            int drain = config.transport.drainTimeout;
            if (drain > 0 && !localConns.isEmpty()) {
                log.info("shutting down: waiting up to {} s (transport.drainTimeout) for {} connections to finish",
                        drain, localConns.size());
                if (!localConns.newCloseFuture().awaitUninterruptibly(drain, TimeUnit.SECONDS)) {
                    log.warn("shutting down: closing {} connections still open after {} s", localConns.size(), drain);
                }
            }
        }
        // The last streams' FINs may still be queued on the loop (see LastWrites).
        servers.close(LastWrites.TIMEOUT_MILLIS + 1000);
        proxies.close();
        if (!ownsGroup) { // the loops go on: what this client still has open on them is closed here
            localConns.close().awaitUninterruptibly(LastWrites.TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            firstLogin.completeExceptionally(new IllegalStateException("client closed"));
            return;
        }
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
