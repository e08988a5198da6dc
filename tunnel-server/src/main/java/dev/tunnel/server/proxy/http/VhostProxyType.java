package dev.tunnel.server.proxy.http;

import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import dev.tunnel.server.Listeners;
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
import dev.tunnel.server.vhost.RoutedProxy;
import dev.tunnel.server.vhost.SessionTarget;
import dev.tunnel.server.vhost.DomainAllowList;
import dev.tunnel.server.vhost.ErrorPages;
import dev.tunnel.server.vhost.HostNames;
import dev.tunnel.server.vhost.VhostListeners;
import dev.tunnel.server.vhost.VhostSettings;
import dev.tunnel.server.vhost.Vhosts;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.util.concurrent.Future;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code type = "http"} and {@code type = "https"}: proxies that share one public port of the
 * server ({@code vhostHTTPPort} / {@code vhostHTTPSPort}), routed by domain. The type opens that
 * port when the server starts (if set) and keeps a route per running proxy ({@link Vhosts}).
 * An https connection, once routed by SNI, is carried like any other ({@link SessionLink#carry});
 * an http connection holds a connection to the app of each proxy its requests go to in turn
 * ({@link SessionLink#open}: a stream in mux mode, a work connection in pool mode).
 *
 * <p>Options: {@code customDomains}, {@code subdomain}, {@code transport.proxyProtocolVersion},
 * and for http {@code locations}, {@code httpUser}, {@code httpPassword},
 * {@code hostHeaderRewrite}, {@code requestHeaders.set.*}, {@code responseHeaders.set.*},
 * {@code routeByHTTPUser}; for both {@code loadBalancer.group} and {@code loadBalancer.groupKey}
 * (proxies of one group share their routes, each new request or connection going to the next
 * of them: {@link dev.tunnel.server.vhost.RouteTable}).
 */
public final class VhostProxyType implements ServerProxyType {
    private static final Logger log = LoggerFactory.getLogger(VhostProxyType.class);

    private final boolean https;
    private final Map<String, DomainAllowList> allowed = new HashMap<>();
    private Vhosts vhosts;
    private VhostListeners listeners;

    private VhostProxyType(boolean https) {
        this.https = https;
    }

    public static VhostProxyType http() {
        return new VhostProxyType(false);
    }

    public static VhostProxyType https() {
        return new VhostProxyType(true);
    }

    @Override
    public String name() {
        return https ? "https" : "http";
    }

    @Override
    public void validate(ServerConfig cfg, ValueChecks checks) {
        if (https) {
            checks.range("vhostHTTPSPort", cfg.vhostHTTPSPort, 0, 65535);
            if (cfg.vhostHTTPSPort != 0) {
                checks.check(cfg.vhostHTTPSPort != cfg.bindPort, "vhostHTTPSPort",
                        cfg.vhostHTTPSPort + " is also bindPort (expected: another port)");
                checks.check(cfg.vhostHTTPSPort != cfg.vhostHTTPPort, "vhostHTTPSPort",
                        cfg.vhostHTTPSPort + " is also vhostHTTPPort (expected: another port)");
            }
            return;
        }
        // the keys both types read are checked once, here
        checks.range("vhostHTTPPort", cfg.vhostHTTPPort, 0, 65535);
        if (cfg.vhostHTTPPort != 0) {
            checks.check(cfg.vhostHTTPPort != cfg.bindPort, "vhostHTTPPort",
                    cfg.vhostHTTPPort + " is also bindPort (expected: another port)");
        }
        checks.atLeast("vhostHTTPTimeout", cfg.vhostHTTPTimeout, 1);
        checks.atLeast("vhostHTTPBodyTimeout", cfg.vhostHTTPBodyTimeout, 1);
        if (cfg.subDomainHost != null && !cfg.subDomainHost.isEmpty()) {
            String problem = cfg.subDomainHost.startsWith("*") ? "\"" + cfg.subDomainHost + "\" (expected a domain"
                    + " without wildcard, such as example.com)" : HostNames.problem(cfg.subDomainHost);
            checks.check(problem == null, "subDomainHost", problem);
        }
        checks.readableFile("custom404Page", cfg.custom404Page);
        for (int i = 0; i < cfg.users.size(); i++) {
            List<String> domains = cfg.users.get(i).allowDomains;
            for (int j = 0; j < domains.size(); j++) {
                String problem = HostNames.problem(domains.get(j));
                checks.check(problem == null, "users[" + i + "].allowDomains[" + j + "]", problem);
            }
        }
    }

    @Override
    public void open(ServerEnvironment environment) throws Exception {
        ServerConfig config = environment.config();
        int port = https ? config.vhostHTTPSPort : config.vhostHTTPPort;
        vhosts = new Vhosts(https ? 0 : port, https ? port : 0, config.subDomainHost);
        for (ServerConfig.User u : config.users) {
            allowed.put(u.name, DomainAllowList.of(u.allowDomains));
        }
        if (port == 0) {
            return;
        }
        byte[] custom404 = config.custom404Page == null || config.custom404Page.isEmpty() ? null
                : Files.readAllBytes(Path.of(config.custom404Page));
        VhostSettings.Counters counters = new VhostSettings.Counters();
        environment.stats().vhostPort(https ? "https" : "http", counters);
        VhostSettings settings = new VhostSettings(vhosts.httpRoutes(), vhosts.httpsRoutes(), new ErrorPages(custom404),
                config.vhostHTTPTimeout, VhostSettings.HEAD_TIMEOUT_SECONDS, config.vhostHTTPBodyTimeout, counters);
        listeners = VhostListeners.bind(environment.workers(), config.effectiveProxyBindAddr(), https ? 0 : port,
                https ? port : 0, settings, environment.publicConns(), Listeners.BACKLOG,
                TrustedSources.parse(config.proxyProtocolTrustedIPs));
    }

    @Override
    public void close() {
        if (listeners != null) {
            listeners.close();
            listeners = null;
        }
    }

    @Override
    public Future<RunningProxy> start(ProxyRequest request, ProxySession session) {
        EventLoop loop = session.link().eventLoop();
        try {
            HAProxyProtocolVersion proxyProtocol = VhostOptions.proxyProtocol(request.options());
            ProxyRef ref = request.proxy();
            ref.proxyProtocol(proxyProtocol);
            Vhosts.Registration registration = vhosts.register(new SessionTarget(session.link(), ref),
                    VhostOptions.spec(request.options(), https), session.user(),
                    allowed.getOrDefault(session.user(), DomainAllowList.any()), VhostOptions.group(request.options()));
            log.info("{} {} {} proxy [{}] serves {} on port {}{}", session.link().control(), session.label(), name(),
                    request.qualifiedName(), registration.domains(), registration.port(https),
                    VhostOptions.groupSuffix(request.options()));
            return loop.newSucceededFuture(new RoutedProxy(registration, registration.port(https), loop));
        } catch (Vhosts.Refused e) {
            return loop.newFailedFuture(new ProxyRefusedException(e.getMessage()));
        } catch (ProxyRefusedException e) {
            return loop.newFailedFuture(e);
        }
    }
}
