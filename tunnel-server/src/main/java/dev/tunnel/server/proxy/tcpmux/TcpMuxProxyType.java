package dev.tunnel.server.proxy.tcpmux;

import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.server.Listeners;
import dev.tunnel.server.inbound.ProxyHeaderGate;
import dev.tunnel.server.inbound.TrustedSources;
import dev.tunnel.server.config.ServerConfig;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.RunningProxy;
import dev.tunnel.server.proxy.ServerEnvironment;
import dev.tunnel.server.proxy.ServerProxyType;
import dev.tunnel.server.proxy.SessionLink;
import dev.tunnel.server.proxy.http.VhostOptions;
import dev.tunnel.server.vhost.RoutedProxy;
import dev.tunnel.server.vhost.SessionTarget;
import dev.tunnel.server.vhost.DomainAllowList;
import dev.tunnel.server.vhost.ProxyProtocolHeader;
import dev.tunnel.server.vhost.VhostSettings;
import dev.tunnel.server.vhost.VhostSpec;
import dev.tunnel.server.vhost.Vhosts;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.Future;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code type = "tcpmux"} with {@code multiplexer = "httpconnect"}: proxies that share the
 * server's {@code tcpmuxHTTPConnectPort}, routed by the host of an HTTP {@code CONNECT}
 * ({@link HttpConnectRouter}), then carried as raw TCP ({@link SessionLink#carry}, mux or pool
 * mode). Domains follow the vhost rules ({@code customDomains}, {@code subdomain} under
 * {@code subDomainHost}, a user's {@code allowDomains}, a taken domain refused with its owner);
 * {@code routeByHTTPUser} and {@code httpUser}/{@code httpPassword} as frp reads them.
 * {@code tcpmuxPassthrough = true} forwards the CONNECT head to the local app instead of answering it.
 * {@code loadBalancer.group}/{@code groupKey}: proxies of one group share their domains, each
 * new CONNECT going to the next of them.
 */
public final class TcpMuxProxyType implements ServerProxyType {
    private static final Logger log = LoggerFactory.getLogger(TcpMuxProxyType.class);
    public static final String NAME = "tcpmux";
    static final String CODEC = "codec";

    private final Map<String, DomainAllowList> allowed = new HashMap<>();
    private Vhosts vhosts;
    private Channel listener;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void validate(ServerConfig cfg, ValueChecks checks) {
        checks.range("tcpmuxHTTPConnectPort", cfg.tcpmuxHTTPConnectPort, 0, 65535);
        if (cfg.tcpmuxHTTPConnectPort != 0) {
            for (Map.Entry<String, Integer> other : Map.of("bindPort", cfg.bindPort, "vhostHTTPPort", cfg.vhostHTTPPort,
                    "vhostHTTPSPort", cfg.vhostHTTPSPort).entrySet()) {
                checks.check(cfg.tcpmuxHTTPConnectPort != other.getValue(), "tcpmuxHTTPConnectPort",
                        cfg.tcpmuxHTTPConnectPort + " is also " + other.getKey() + " (expected: another port)");
            }
        }
    }

    @Override
    public void open(ServerEnvironment environment) {
        ServerConfig config = environment.config();
        int port = config.tcpmuxHTTPConnectPort;
        vhosts = new Vhosts(port, 0, config.subDomainHost);
        for (ServerConfig.User u : config.users) {
            allowed.put(u.name, DomainAllowList.of(u.allowDomains));
        }
        if (port == 0) {
            return;
        }
        boolean passthrough = config.tcpmuxPassthrough;
        String address = config.effectiveProxyBindAddr();
        TrustedSources trust = TrustedSources.parse(config.proxyProtocolTrustedIPs);
        try {
            listener = new ServerBootstrap()
                    .group(environment.workers())
                    .channel(Transports.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, Listeners.BACKLOG)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.AUTO_READ, false)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            environment.publicConns().add(ch);
                            ProxyHeaderGate.install(ch.pipeline(), trust);
                            ch.pipeline().addLast(CODEC, new HttpServerCodec(VhostSettings.MAX_REQUEST_LINE,
                                    VhostSettings.MAX_REQUEST_HEADERS, 8192));
                            ch.pipeline().addLast("tcpmux", new HttpConnectRouter(vhosts.httpRoutes(), passthrough,
                                    VhostSettings.HEAD_TIMEOUT_SECONDS * 1000L, CODEC));
                        }
                    })
                    .bind(address, port).syncUninterruptibly().channel();
        } catch (Exception e) {
            throw new IllegalStateException("failed to bind on [" + address + ":" + port + "]: " + e.getMessage(), e);
        }
        log.info("tcpmux httpconnect port listening on {}{}", listener.localAddress(),
                passthrough ? " (tcpmuxPassthrough: CONNECT heads go to the local apps)" : "");
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close().syncUninterruptibly();
            listener = null;
        }
    }

    /** The port bound (tests with port 0 ask the OS for one). */
    public int port() {
        return listener == null ? 0 : ((java.net.InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public Future<RunningProxy> start(ProxyRequest request, ProxySession session) {
        EventLoop loop = session.link().eventLoop();
        Options o = request.options();
        try {
            String multiplexer = o.string("multiplexer", "");
            if (!"httpconnect".equals(multiplexer)) {
                throw new ProxyRefusedException("multiplexer = \"" + multiplexer + "\" (expected: \"httpconnect\")");
            }
            if (listener == null) {
                throw new ProxyRefusedException("the server serves no tcpmux proxies (its tcpmuxHTTPConnectPort is not set)");
            }
            ProxyRef ref = request.proxy();
            try {
                ref.proxyProtocol(ProxyProtocolHeader.version(o.string("transport.proxyProtocolVersion", "")));
            } catch (IllegalArgumentException e) {
                throw new ProxyRefusedException("transport." + e.getMessage());
            }
            VhostSpec spec = new VhostSpec(false, o.list("customDomains"), o.string("subdomain", ""), List.of(),
                    o.string("httpUser", ""), o.string("httpPassword", ""), "", Map.of(), Map.of(),
                    o.string("routeByHTTPUser", ""));
            Vhosts.Registration registration = vhosts.register(new SessionTarget(session.link(), ref), spec,
                    session.user(), allowed.getOrDefault(session.user(), DomainAllowList.any()), VhostOptions.group(o));
            log.info("{} {} tcpmux proxy [{}] serves {} on port {}{}", session.link().control(), session.label(),
                    request.qualifiedName(), registration.domains(), port(), VhostOptions.groupSuffix(o));
            return loop.newSucceededFuture(new RoutedProxy(registration, port(), loop));
        } catch (Vhosts.Refused e) {
            return loop.newFailedFuture(new ProxyRefusedException(e.getMessage()));
        } catch (ProxyRefusedException e) {
            return loop.newFailedFuture(e);
        }
    }
}
