package dev.tunnel.client.proxy.http;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;

/**
 * {@code type = "http"}: the server's shared {@code vhostHTTPPort} routes requests for the
 * proxy's {@code customDomains} / {@code subdomain} (and {@code locations}) to it; each stream
 * becomes a TCP connection to the local app. Basic auth, header rewrites and routing happen on
 * the server, so the client only sends the keys: {@code customDomains}, {@code subdomain},
 * {@code locations}, {@code httpUser}, {@code httpPassword}, {@code hostHeaderRewrite},
 * {@code requestHeaders.set.*}, {@code responseHeaders.set.*}, {@code routeByHTTPUser},
 * {@code transport.proxyProtocolVersion}.
 */
public final class HttpClientType implements ClientProxyType {
    public static final String NAME = "http";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void validate(ProxyConfig proxy, String key, ValueChecks checks) {
        VhostKeys.validate(proxy, key, checks, true);
    }

    @Override
    public Options options(ProxyConfig proxy) {
        return VhostKeys.routedByName(proxy)
                .putList("locations", proxy.locations)
                .put("httpUser", proxy.httpUser)
                .put("httpPassword", proxy.httpPassword)
                .put("hostHeaderRewrite", proxy.hostHeaderRewrite)
                .putMap("requestHeaders.set", proxy.requestHeaders.set)
                .putMap("responseHeaders.set", proxy.responseHeaders.set)
                .put("routeByHTTPUser", proxy.routeByHTTPUser)
                .build();
    }
}
