package dev.tunnel.client.config;

import dev.tunnel.config.ValueChecks;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks one {@code [proxies.plugin]} table: the type, the keys that type requires, and no key of
 * another type (frp decodes each type into its own struct, so a key of another type is an error
 * there too).
 */
final class PluginValidator {

    /** Every plugin type frp has; those not in {@link #KEYS} are "not supported yet". */
    static final List<String> FRP_PLUGIN_TYPES = List.of("http_proxy", "socks5", "unix_domain_socket", "http2https",
            "https2http", "https2https", "http2http", "tls2raw", "static_file", "virtual_net");

    /** The supported types and the keys each reads (besides {@code type}). */
    static final Map<String, Set<String>> KEYS = keys();

    private final ValueChecks checks;

    PluginValidator(ValueChecks checks) {
        this.checks = checks;
    }

    private static Map<String, Set<String>> keys() {
        Map<String, Set<String>> keys = new LinkedHashMap<>();
        keys.put("static_file", Set.of("localPath", "stripPrefix", "httpUser", "httpPassword"));
        keys.put("unix_domain_socket", Set.of("unixPath"));
        keys.put("http_proxy", Set.of("httpUser", "httpPassword", "allowDestinations"));
        keys.put("socks5", Set.of("username", "password", "allowDestinations"));
        keys.put("tls2raw", Set.of("localAddr", "crtPath", "keyPath"));
        keys.put("http2http", Set.of("localAddr", "hostHeaderRewrite", "requestHeaders"));
        keys.put("http2https", Set.of("localAddr", "hostHeaderRewrite", "requestHeaders"));
        keys.put("https2http", Set.of("localAddr", "hostHeaderRewrite", "requestHeaders", "crtPath", "keyPath",
                "enableHTTP2"));
        keys.put("https2https", Set.of("localAddr", "hostHeaderRewrite", "requestHeaders", "crtPath", "keyPath",
                "enableHTTP2"));
        return Map.copyOf(keys);
    }

    void validate(String key, PluginConfig plugin) {
        List<String> supported = List.of("static_file", "unix_domain_socket", "http_proxy", "socks5", "tls2raw",
                "http2http", "http2https", "https2http", "https2https");
        if (!checks.oneOf(key + ".type", plugin.type, supported, FRP_PLUGIN_TYPES)) {
            return;
        }
        Set<String> reads = KEYS.get(plugin.type);
        for (Map.Entry<String, String> set : setKeys(plugin).entrySet()) {
            checks.check(reads.contains(set.getKey()), key + "." + set.getKey(),
                    "not a key of plugin \"" + plugin.type + "\" (its keys: type, "
                            + String.join(", ", reads.stream().sorted().toList()) + ")");
        }
        switch (plugin.type) {
            case "static_file" -> checks.directory(key + ".localPath", plugin.localPath);
            case "unix_domain_socket" -> checks.notBlank(key + ".unixPath", plugin.unixPath);
            case "tls2raw" -> {
                hostPort(key + ".localAddr", plugin.localAddr);
                keyPair(key, plugin);
            }
            case "http2http", "http2https" -> hostPort(key + ".localAddr", plugin.localAddr);
            case "https2http", "https2https" -> {
                hostPort(key + ".localAddr", plugin.localAddr);
                keyPair(key, plugin);
                checks.check(!Boolean.TRUE.equals(plugin.enableHTTP2), key + ".enableHTTP2",
                        "true is not supported yet (the plugin speaks HTTP/1.1 to visitors; set false or remove the key)");
            }
            case "http_proxy", "socks5" -> destinations(key + ".allowDestinations", plugin.allowDestinations);
            default -> {
                // every supported type is listed above
            }
        }
    }

    /** Each entry an address or network with an optional port; credentials are optional. */
    private void destinations(String key, List<String> entries) {
        for (int i = 0; i < entries.size(); i++) {
            try {
                DestinationRule.parse(entries.get(i));
            } catch (IllegalArgumentException e) {
                checks.check(false, key + "[" + i + "]", e.getMessage());
            }
        }
    }

    /** {@code crtPath} and {@code keyPath}: both or neither (a self-signed certificate), files that exist. */
    private void keyPair(String key, PluginConfig plugin) {
        String crt = plugin.crtPath.isEmpty() ? null : plugin.crtPath;
        String pem = plugin.keyPath.isEmpty() ? null : plugin.keyPath;
        if (checks.together(key + ".crtPath", crt, key + ".keyPath", pem)) {
            checks.readableFile(key + ".crtPath", crt);
            checks.readableFile(key + ".keyPath", pem);
        }
    }

    /** {@code host:port} (IPv6 in brackets) with a port 1-65535. */
    private void hostPort(String key, String value) {
        if (!checks.notBlank(key, value)) {
            return;
        }
        checks.check(parsePort(value) > 0 && host(value) != null, key,
                "\"" + value + "\" (expected: host:port, e.g. 127.0.0.1:8080)");
    }

    /** The port of {@code host:port}, or -1. */
    static int parsePort(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
            return -1;
        }
        try {
            int port = Integer.parseInt(hostPort.substring(colon + 1));
            return port >= 1 && port <= 65535 ? port : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The host of {@code host:port} without IPv6 brackets, or null when malformed. */
    static String host(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            return null;
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            return host.substring(1, host.length() - 1);
        }
        return host.contains(":") || host.isBlank() ? null : host;
    }

    /** The keys given a value other than their default, by name. */
    private static Map<String, String> setKeys(PluginConfig p) {
        Map<String, String> set = new LinkedHashMap<>();
        put(set, "localPath", p.localPath);
        put(set, "stripPrefix", p.stripPrefix);
        put(set, "httpUser", p.httpUser);
        put(set, "httpPassword", p.httpPassword);
        put(set, "unixPath", p.unixPath);
        put(set, "username", p.username);
        put(set, "password", p.password);
        put(set, "localAddr", p.localAddr);
        put(set, "crtPath", p.crtPath);
        put(set, "keyPath", p.keyPath);
        put(set, "hostHeaderRewrite", p.hostHeaderRewrite);
        if (!p.requestHeaders.set.isEmpty()) {
            set.put("requestHeaders", "set");
        }
        if (!p.allowDestinations.isEmpty()) {
            set.put("allowDestinations", p.allowDestinations.toString());
        }
        if (p.enableHTTP2 != null) {
            set.put("enableHTTP2", p.enableHTTP2.toString());
        }
        return set;
    }

    private static void put(Map<String, String> set, String key, String value) {
        if (value != null && !value.isEmpty()) {
            set.put(key, value);
        }
    }
}
