package dev.tunnel.client.proxy.http;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;

/**
 * {@code type = "https"}: the server's shared {@code vhostHTTPSPort} routes TLS connections whose
 * ClientHello names one of the proxy's {@code customDomains} / {@code subdomain} to it, without
 * terminating TLS: the local app holds the certificate. Reads {@code customDomains},
 * {@code subdomain}, {@code transport.proxyProtocolVersion}.
 */
public final class HttpsClientType implements ClientProxyType {
    public static final String NAME = "https";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void validate(ProxyConfig proxy, String key, ValueChecks checks) {
        VhostKeys.validate(proxy, key, checks, false);
    }

    @Override
    public Options options(ProxyConfig proxy) {
        return VhostKeys.routedByName(proxy).build();
    }
}
