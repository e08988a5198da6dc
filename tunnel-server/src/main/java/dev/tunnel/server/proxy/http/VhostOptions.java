package dev.tunnel.server.proxy.http;

import dev.tunnel.protocol.Options;
import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.vhost.ProxyProtocolHeader;
import dev.tunnel.server.vhost.VhostSpec;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;

/** Reads the options an http or https proxy's {@code NEW_PROXY} carries (frp's key names); untrusted input. */
final class VhostOptions {
    private VhostOptions() {
    }

    static VhostSpec spec(Options o, boolean https) {
        if (https) {
            return VhostSpec.https(o.list("customDomains"), o.string("subdomain", ""));
        }
        return new VhostSpec(false, o.list("customDomains"), o.string("subdomain", ""), o.list("locations"),
                o.string("httpUser", ""), o.string("httpPassword", ""), o.string("hostHeaderRewrite", ""),
                o.map("requestHeaders.set"), o.map("responseHeaders.set"), o.string("routeByHTTPUser", ""));
    }

    static HAProxyProtocolVersion proxyProtocol(Options o) throws ProxyRefusedException {
        try {
            return ProxyProtocolHeader.version(o.string("transport.proxyProtocolVersion", ""));
        } catch (IllegalArgumentException e) {
            throw new ProxyRefusedException("transport." + e.getMessage());
        }
    }
}
