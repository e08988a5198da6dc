package dev.tunnel.client.proxy.http;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import java.util.List;

/**
 * The client-side checks of the vhost keys, as frp makes them: a domain is needed, keys of the
 * other types are refused by name. The server checks the rest (domain syntax, its
 * {@code subDomainHost}, the user's {@code allowDomains}, routes taken by other proxies).
 */
public final class VhostKeys {
    static final List<String> PROXY_PROTOCOL_VERSIONS = List.of("", "v1", "v2");

    private VhostKeys() {
    }

    /**
     * The {@code NEW_PROXY} options of every type the server routes by name: the names
     * ({@code customDomains}, {@code subdomain}) and {@code transport.proxyProtocolVersion}.
     */
    public static Options.Builder routedByName(ProxyConfig p) {
        return Options.builder()
                .putList("customDomains", p.customDomains)
                .put("subdomain", p.subdomain)
                .put("transport.proxyProtocolVersion", p.transport.proxyProtocolVersion);
    }

    /** The checks of an http ({@code http = true}) or https proxy at {@code key}. */
    static void validate(ProxyConfig p, String key, ValueChecks checks, boolean http) {
        String type = http ? "http" : "https";
        checks.check(!p.customDomains.isEmpty() || !p.subdomain.isEmpty(), key + ".customDomains",
                "missing: a " + type + " proxy needs customDomains or subdomain (or both)");
        for (int i = 0; i < p.customDomains.size(); i++) {
            String d = p.customDomains.get(i);
            checks.check(d != null && !d.isBlank() && d.chars().noneMatch(c -> c <= ' ' || c == '/' || c == ':'),
                    key + ".customDomains[" + i + "]", "\"" + d + "\" (expected a domain such as app.example.com"
                            + " or *.example.com, without scheme or port)");
        }
        checks.check(!p.subdomain.contains(".") && !p.subdomain.contains("*"), key + ".subdomain",
                "\"" + p.subdomain + "\": '.' and '*' are not supported in subdomain");
        checks.check(p.remotePort == 0, key + ".remotePort", p.remotePort + " is for tcp and udp proxies; a " + type
                + " proxy is reached on the server's " + (http ? "vhostHTTPPort" : "vhostHTTPSPort"));
        checks.oneOf(key + ".transport.proxyProtocolVersion", p.transport.proxyProtocolVersion, PROXY_PROTOCOL_VERSIONS,
                List.of());
        if (http) {
            for (int i = 0; i < p.locations.size(); i++) {
                String l = p.locations.get(i);
                checks.check(l != null && (l.isEmpty() || l.startsWith("/")), key + ".locations[" + i + "]",
                        "\"" + l + "\" (expected a path prefix starting with /)");
            }
            checks.check(p.httpPassword.isEmpty() || !p.httpUser.isEmpty(), key + ".httpPassword",
                    "is set without httpUser");
            headerNames(key + ".requestHeaders.set", p.requestHeaders.set.keySet(), checks);
            headerNames(key + ".responseHeaders.set", p.responseHeaders.set.keySet(), checks);
        } else {
            httpOnly(p, key, checks, "http proxies");
        }
    }

    /**
     * The checks of a tcpmux proxy at {@code key}: a domain as for http and https; of the http
     * keys only {@code httpUser}, {@code httpPassword} and {@code routeByHTTPUser} apply.
     */
    public static void validateTcpMux(ProxyConfig p, String key, ValueChecks checks) {
        checks.check(!p.customDomains.isEmpty() || !p.subdomain.isEmpty(), key + ".customDomains",
                "missing: a tcpmux proxy needs customDomains or subdomain (or both)");
        for (int i = 0; i < p.customDomains.size(); i++) {
            String d = p.customDomains.get(i);
            checks.check(d != null && !d.isBlank() && d.chars().noneMatch(c -> c <= ' ' || c == '/' || c == ':'),
                    key + ".customDomains[" + i + "]", "\"" + d + "\" (expected a domain such as app.example.com"
                            + " or *.example.com, without scheme or port)");
        }
        checks.check(!p.subdomain.contains(".") && !p.subdomain.contains("*"), key + ".subdomain",
                "\"" + p.subdomain + "\": '.' and '*' are not supported in subdomain");
        checks.oneOf(key + ".transport.proxyProtocolVersion", p.transport.proxyProtocolVersion, PROXY_PROTOCOL_VERSIONS,
                List.of());
        checks.check(p.httpPassword.isEmpty() || !p.httpUser.isEmpty(), key + ".httpPassword", "is set without httpUser");
        for (String name : List.of("locations", "hostHeaderRewrite")) {
            checks.check(!httpOnlySet(p, name), key + "." + name, "applies to http proxies only");
        }
        checks.check(p.requestHeaders.set.isEmpty(), key + ".requestHeaders", "applies to http proxies only");
        checks.check(p.responseHeaders.set.isEmpty(), key + ".responseHeaders", "applies to http proxies only");
    }

    /** For types without vhost keys ({@code tcp}): each one set is an error naming it, never ignored. */
    public static void refuseOnOtherTypes(ProxyConfig p, String key, ValueChecks checks) {
        checks.check(p.customDomains.isEmpty(), key + ".customDomains", "applies to http, https and tcpmux proxies only");
        checks.check(p.subdomain.isEmpty(), key + ".subdomain", "applies to http, https and tcpmux proxies only");
        httpOnly(p, key, checks, "http proxies");
    }

    private static void httpOnly(ProxyConfig p, String key, ValueChecks checks, String what) {
        for (String name : List.of("locations", "httpUser", "httpPassword", "hostHeaderRewrite", "routeByHTTPUser")) {
            checks.check(!httpOnlySet(p, name), key + "." + name, "applies to " + what + " only");
        }
        checks.check(p.requestHeaders.set.isEmpty(), key + ".requestHeaders", "applies to " + what + " only");
        checks.check(p.responseHeaders.set.isEmpty(), key + ".responseHeaders", "applies to " + what + " only");
    }

    private static boolean httpOnlySet(ProxyConfig p, String name) {
        return switch (name) {
            case "locations" -> !p.locations.isEmpty();
            case "httpUser" -> !p.httpUser.isEmpty();
            case "httpPassword" -> !p.httpPassword.isEmpty();
            case "hostHeaderRewrite" -> !p.hostHeaderRewrite.isEmpty();
            default -> !p.routeByHTTPUser.isEmpty();
        };
    }

    private static void headerNames(String key, java.util.Set<String> names, ValueChecks checks) {
        for (String n : names) {
            checks.check(!n.isEmpty() && n.chars().allMatch(c -> c > ' ' && c < 127 && c != ':'), key + "." + n,
                    "\"" + n + "\" is not a valid header name");
        }
    }
}
