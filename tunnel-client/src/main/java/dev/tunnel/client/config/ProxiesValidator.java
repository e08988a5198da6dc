package dev.tunnel.client.config;

import dev.tunnel.config.ValueChecks;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Checks the {@code [[proxies]]} list: each entry, its plugin, and names and remote ports used twice. */
final class ProxiesValidator {

    static final List<String> FRP_PROXY_TYPES = List.of("udp", "http", "https", "stcp", "xtcp", "sudp", "tcpmux");
    static final List<String> FRP_PLUGIN_TYPES = List.of("http_proxy", "socks5", "unix_domain_socket", "http2https",
            "https2http", "https2https", "http2http", "tls2raw");

    private final ValueChecks checks;

    ProxiesValidator(ValueChecks checks) {
        this.checks = checks;
    }

    void validate(List<ProxyConfig> proxies) {
        Map<String, Integer> names = new HashMap<>();
        Map<Integer, Integer> remotePorts = new HashMap<>();
        for (int i = 0; i < proxies.size(); i++) {
            String key = "proxies[" + i + "]";
            ProxyConfig p = proxies.get(i);
            proxy(key, p);
            if (p.name != null && !p.name.isBlank()) {
                Integer first = names.putIfAbsent(p.name, i);
                checks.check(first == null, key + ".name",
                        "\"" + p.name + "\" is already the name of proxies[" + first + "] (names must be unique)");
            }
            if (p.remotePort != 0) {
                Integer first = remotePorts.putIfAbsent(p.remotePort, i);
                checks.check(first == null, key + ".remotePort",
                        p.remotePort + " is already used by proxies[" + first + "]");
            }
        }
    }

    private void proxy(String key, ProxyConfig p) {
        checks.notBlank(key + ".name", p.name);
        checks.oneOf(key + ".type", p.type, List.of("tcp"), FRP_PROXY_TYPES);
        checks.range(key + ".remotePort", p.remotePort, 0, 65535);
        if (p.plugin == null) {
            checks.notBlank(key + ".localIP", p.localIP);
            if (p.localPort == 0) {
                checks.check(false, key + ".localPort", "missing (required unless a plugin is set; expected: 1-65535)");
            } else {
                checks.port(key + ".localPort", p.localPort);
            }
        } else {
            plugin(key + ".plugin", p.plugin);
        }
    }

    private void plugin(String key, PluginConfig plugin) {
        if (checks.oneOf(key + ".type", plugin.type, List.of("static_file"), FRP_PLUGIN_TYPES)) {
            checks.directory(key + ".localPath", plugin.localPath);
        }
    }
}
