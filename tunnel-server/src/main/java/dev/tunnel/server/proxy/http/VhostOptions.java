package dev.tunnel.server.proxy.http;

import dev.tunnel.protocol.Options;
import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.vhost.ProxyProtocolHeader;
import dev.tunnel.server.vhost.RouteTable;
import dev.tunnel.server.vhost.VhostSpec;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;

/** Reads the options an http or https proxy's {@code NEW_PROXY} carries (frp's key names); untrusted input. */
public final class VhostOptions {
    /** Longest group name accepted (the client checks the same). */
    private static final int MAX_GROUP = 128;

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

    /**
     * The load-balancing group a proxy names ({@code loadBalancer.group}, {@code groupKey}), or
     * null for none.
     *
     * @throws ProxyRefusedException for a group name over {@link #MAX_GROUP} characters
     */
    public static RouteTable.Group group(Options o) throws ProxyRefusedException {
        String name = o.string("loadBalancer.group", "");
        if (name.length() > MAX_GROUP) {
            throw new ProxyRefusedException("loadBalancer.group: longer than " + MAX_GROUP + " characters");
        }
        return RouteTable.Group.of(name, o.string("loadBalancer.groupKey", ""));
    }

    /** " in group [name]" for the log line of a proxy in a group, else "". */
    public static String groupSuffix(Options o) {
        String name = o.string("loadBalancer.group", "");
        return name.isEmpty() ? "" : " in group [" + name + "]";
    }

    static HAProxyProtocolVersion proxyProtocol(Options o) throws ProxyRefusedException {
        try {
            return ProxyProtocolHeader.version(o.string("transport.proxyProtocolVersion", ""));
        } catch (IllegalArgumentException e) {
            throw new ProxyRefusedException("transport." + e.getMessage());
        }
    }
}
