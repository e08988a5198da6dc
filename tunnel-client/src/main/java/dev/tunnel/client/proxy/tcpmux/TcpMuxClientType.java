package dev.tunnel.client.proxy.tcpmux;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.client.proxy.http.VhostKeys;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import java.util.List;

/**
 * {@code type = "tcpmux"}: the server's shared {@code tcpmuxHTTPConnectPort} takes
 * {@code CONNECT host:port}, routes it by host to the proxy serving {@code customDomains} /
 * {@code subdomain} (and {@code routeByHTTPUser}), checks {@code httpUser}/{@code httpPassword}
 * and carries the connection as raw TCP to the local app. Reads {@code multiplexer} (only
 * {@code "httpconnect"}, as in frp), those keys and {@code transport.proxyProtocolVersion}.
 */
public final class TcpMuxClientType implements ClientProxyType {
    public static final String NAME = "tcpmux";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void validate(ProxyConfig proxy, String key, ValueChecks checks) {
        checks.oneOf(key + ".multiplexer", proxy.multiplexer, List.of("httpconnect"), List.of());
        VhostKeys.validateTcpMux(proxy, key, checks);
    }

    @Override
    public Options options(ProxyConfig proxy) {
        return VhostKeys.routedByName(proxy)
                .put("multiplexer", proxy.multiplexer)
                .put("httpUser", proxy.httpUser)
                .put("httpPassword", proxy.httpPassword)
                .put("routeByHTTPUser", proxy.routeByHTTPUser)
                .build();
    }

    /** No port of its own: reached on the server's tcpmuxHTTPConnectPort. */
    @Override
    public String portSpace() {
        return null;
    }
}
