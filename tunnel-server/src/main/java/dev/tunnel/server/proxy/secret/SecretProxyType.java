package dev.tunnel.server.proxy.secret;

import dev.tunnel.protocol.Options;
import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.RunningProxy;
import dev.tunnel.server.proxy.ServerProxyType;
import dev.tunnel.server.proxy.ServerProxyTypes;
import io.netty.util.concurrent.Future;
import dev.tunnel.server.vhost.ProxyProtocolHeader;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code type = "stcp"} or {@code "sudp"}: no public port; the proxy is filed in a
 * {@link SecretProxies} table shared by both types, where visitors find it. The two differ only
 * on the client (a TCP or a UDP local app; the visitor's listener). Options: {@code secretKey}
 * (required; sent inside the tunnel's TLS, as frp sends it), {@code allowUsers[i]}. Mux mode only:
 * a visitor's stream is spliced to a stream of the provider's session.
 */
public final class SecretProxyType implements ServerProxyType {
    private static final Logger log = LoggerFactory.getLogger(SecretProxyType.class);

    private final String name;
    private final SecretProxies table;

    public SecretProxyType(String name, SecretProxies table) {
        this.name = name;
        this.table = table;
    }

    /** The table of the first secret type in {@code types}, or null when it has none. */
    public static SecretProxies tableOf(ServerProxyTypes types) {
        return types.all().stream().filter(SecretProxyType.class::isInstance).map(t -> ((SecretProxyType) t).table)
                .findFirst().orElse(null);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Future<RunningProxy> start(ProxyRequest request, ProxySession session) {
        if (!session.link().carriesStreams()) {
            return failed(session, "proxy type \"" + name + "\" needs transport.tcpMux = true (pool mode has no"
                    + " streams: a visitor's stream is spliced to a stream of the provider's session)");
        }
        Options options = request.options();
        String secretKey = options.string("secretKey", "");
        if (secretKey.isEmpty()) {
            return failed(session, "secretKey: must not be empty for an " + name + " proxy");
        }
        List<String> allowUsers = options.list("allowUsers");
        try {
            HAProxyProtocolVersion version = ProxyProtocolHeader.version(options.string("transport.proxyProtocolVersion", ""));
            if (version != null && udp()) {
                return failed(session, "transport.proxyProtocolVersion: not supported for sudp (the provider's"
                        + " datagrams carry no visitor address to name)");
            }
            request.proxy().proxyProtocol(version);
        } catch (IllegalArgumentException e) {
            return failed(session, "transport." + e.getMessage());
        }
        SecretProxies.Provider provider = new SecretProxies.Provider(session, request.proxy(), name, session.user(),
                request.name(), secretKey, allowUsers);
        String refused = table.register(provider);
        if (refused != null) {
            return failed(session, refused);
        }
        log.info("{} {} {} registered for visitors (allowUsers {})", session.link().control(), session.label(),
                provider, allowUsers.isEmpty() ? "[only " + (session.user().isEmpty() ? "clients without a user"
                        : session.user()) + "]" : allowUsers);
        RunningProxy running = new RunningProxy() {
            @Override
            public int remotePort() {
                return 0;
            }

            @Override
            public Future<?> close() {
                table.unregister(provider);
                return session.link().eventLoop().newSucceededFuture(null);
            }
        };
        return session.link().eventLoop().newSucceededFuture(running);
    }

    private boolean udp() {
        return name.equals("sudp");
    }

    private static Future<RunningProxy> failed(ProxySession session, String reason) {
        return session.link().eventLoop().newFailedFuture(new ProxyRefusedException(reason));
    }
}
