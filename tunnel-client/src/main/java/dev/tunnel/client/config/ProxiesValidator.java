package dev.tunnel.client.config;

import dev.tunnel.config.ValueChecks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Checks the {@code [[proxies]]} list: each entry, its plugin, and names and remote ports used twice. */
final class ProxiesValidator {

    static final List<String> FRP_PROXY_TYPES = List.of("http", "https", "xtcp", "tcpmux");
    static final List<String> FRP_PLUGIN_TYPES = List.of("http_proxy", "socks5", "unix_domain_socket", "http2https",
            "https2http", "https2https", "http2http", "tls2raw");

    private final ValueChecks checks;

    ProxiesValidator(ValueChecks checks) {
        this.checks = checks;
    }

    /** Proxy types that ride mux streams only (datagrams framed on a stream, or a visitor's stream spliced). */
    static final List<String> MUX_ONLY_TYPES = List.of("udp", "stcp", "sudp");
    static final List<String> SECRET_TYPES = List.of("stcp", "sudp");

    void validate(List<ProxyConfig> proxies, boolean tcpMux) {
        Map<String, Integer> names = new HashMap<>();
        Map<Integer, Integer> remotePorts = new HashMap<>();
        for (int i = 0; i < proxies.size(); i++) {
            String key = "proxies[" + i + "]";
            ProxyConfig p = proxies.get(i);
            proxy(key, p);
            if (!tcpMux && MUX_ONLY_TYPES.contains(p.type)) {
                checks.check(false, key + ".type", "\"" + p.type + "\" needs transport.tcpMux = true (pool mode carries"
                        + " TCP connections only)");
            }
            if (p.name != null && !p.name.isBlank()) {
                Integer first = names.putIfAbsent(p.name, i);
                checks.check(first == null, key + ".name",
                        "\"" + p.name + "\" is already the name of proxies[" + first + "] (names must be unique)");
            }
            if (p.remotePort != 0 && !SECRET_TYPES.contains(p.type)) {
                // UDP ports are apart from TCP ones: a tcp and a udp proxy may share a number
                Integer first = remotePorts.putIfAbsent("udp".equals(p.type) ? -p.remotePort : p.remotePort, i);
                checks.check(first == null, key + ".remotePort",
                        p.remotePort + " is already used by proxies[" + first + "]");
            }
        }
    }

    private void proxy(String key, ProxyConfig p) {
        checks.notBlank(key + ".name", p.name);
        checks.oneOf(key + ".type", p.type, List.of("tcp", "udp", "stcp", "sudp"), FRP_PROXY_TYPES);
        checks.range(key + ".remotePort", p.remotePort, 0, 65535);
        if (SECRET_TYPES.contains(p.type)) {
            checks.check(p.remotePort == 0, key + ".remotePort", p.remotePort + ": a " + p.type
                    + " proxy has no public port (visitors reach it through the server); remove remotePort");
            checks.notBlank(key + ".secretKey", p.secretKey);
        } else {
            checks.check(p.secretKey == null, key + ".secretKey", "only stcp and sudp proxies have one (type is \""
                    + p.type + "\")");
            checks.check(p.allowUsers.isEmpty(), key + ".allowUsers", "only stcp and sudp proxies have it (type is \""
                    + p.type + "\")");
        }
        if (p.plugin == null) {
            checks.notBlank(key + ".localIP", p.localIP);
            if (p.localPort == 0) {
                checks.check(false, key + ".localPort", "missing (required unless a plugin is set; expected: 1-65535)");
            } else {
                checks.port(key + ".localPort", p.localPort);
            }
        } else {
            checks.check("tcp".equals(p.type), key + ".plugin", "a plugin serves TCP only (type is \"" + p.type + "\")");
            plugin(key + ".plugin", p.plugin);
        }
    }

    private void plugin(String key, PluginConfig plugin) {
        if (checks.oneOf(key + ".type", plugin.type, List.of("static_file"), FRP_PLUGIN_TYPES)) {
            checks.directory(key + ".localPath", plugin.localPath);
        }
    }
}
