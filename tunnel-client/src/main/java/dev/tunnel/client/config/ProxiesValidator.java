package dev.tunnel.client.config;

import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.relay.Bandwidth;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks the {@code [[proxies]]} list: the keys every entry has, then the keys of its type (the
 * type's own {@link ClientProxyType#validate}, from the registry), its plugin, and names and
 * remote ports used twice.
 */
final class ProxiesValidator {

    /** Every proxy type frp has; those this build does not register are "not supported yet". */
    static final List<String> FRP_PROXY_TYPES = List.of("tcp", "udp", "http", "https", "stcp", "xtcp", "sudp", "tcpmux");
    /** The proxy types whose connections a plugin can serve (byte streams, as in frp). */
    static final List<String> PLUGIN_PROXY_TYPES = List.of("tcp", "http", "https", "stcp", "tcpmux");

    private final ValueChecks checks;
    private final ClientProxyTypes types;

    ProxiesValidator(ValueChecks checks, ClientProxyTypes types) {
        this.checks = checks;
        this.types = types;
    }

    void validate(List<ProxyConfig> proxies, boolean tcpMux) {
        Map<String, Integer> names = new HashMap<>();
        Map<String, Integer> remotePorts = new HashMap<>();
        for (int i = 0; i < proxies.size(); i++) {
            String key = "proxies[" + i + "]";
            ProxyConfig p = proxies.get(i);
            proxy(key, p);
            if (p.name != null && !p.name.isBlank()) {
                Integer first = names.putIfAbsent(p.name, i);
                checks.check(first == null, key + ".name",
                        "\"" + p.name + "\" is already the name of proxies[" + first + "] (names must be unique)");
            }
            ClientProxyType type = p.type == null ? null : types.get(p.type);
            if (type == null) {
                continue;
            }
            if (type.needsMux() && !tcpMux) {
                checks.check(false, key + ".type", "\"" + p.type + "\" needs transport.tcpMux = true (pool mode carries"
                        + " TCP connections only)");
            }
            if (p.remotePort != 0 && type.portSpace() == null) {
                checks.check(false, key + ".remotePort", p.remotePort + ": a " + p.type + " proxy has no public port"
                        + " (visitors reach it through the server); remove remotePort");
            } else if (p.remotePort != 0) {
                // UDP ports are a space apart from TCP ones: a tcp and a udp proxy may share a number
                Integer first = remotePorts.putIfAbsent(type.portSpace() + " " + p.remotePort, i);
                checks.check(first == null, key + ".remotePort",
                        p.remotePort + " is already used by proxies[" + first + "]");
            }
        }
    }

    /** {@code transport.bandwidthLimit} and {@code transport.bandwidthLimitMode}, as frp reads them. */
    private void bandwidth(String key, ProxyTransport t, List<String> typeModes, String type) {
        if (!checks.oneOf(key + ".bandwidthLimitMode", t.bandwidthLimitMode,
                List.of(Bandwidth.MODE_CLIENT, Bandwidth.MODE_SERVER), List.of())) {
            return;
        }
        long limit;
        try {
            limit = Bandwidth.parse(t.bandwidthLimit);
        } catch (IllegalArgumentException e) {
            checks.check(false, key + ".bandwidthLimit", e.getMessage());
            return;
        }
        if (limit > 0 && !typeModes.contains(t.bandwidthLimitMode)) {
            checks.check(false, key + ".bandwidthLimit", typeModes.isEmpty()
                    ? "a " + type + " proxy cannot be bandwidth-limited"
                    : "a " + type + " proxy is limited in mode \"" + String.join("\" or \"", typeModes)
                            + "\" only (bandwidthLimitMode is \"" + t.bandwidthLimitMode + "\")");
        }
    }

    /** Checks one entry on its own (a proxy added to a running client), under {@code key}. */
    void proxy(String key, ProxyConfig p) {
        checks.notBlank(key + ".name", p.name);
        List<String> frpOnly = FRP_PROXY_TYPES.stream().filter(t -> types.get(t) == null).toList();
        if (checks.oneOf(key + ".type", p.type, types.names(), frpOnly)) {
            types.get(p.type).validate(p, key, checks);
            bandwidth(key + ".transport", p.transport, types.get(p.type).bandwidthLimitModes(), p.type);
        }
        if (p.plugin == null) {
            checks.notBlank(key + ".localIP", p.localIP);
            if (p.localPort == 0) {
                checks.check(false, key + ".localPort", "missing (required unless a plugin is set; expected: 1-65535)");
            } else {
                checks.port(key + ".localPort", p.localPort);
            }
        } else {
            checks.check(PLUGIN_PROXY_TYPES.contains(p.type), key + ".plugin", "a plugin serves byte streams only"
                    + " (proxy types " + String.join(", ", PLUGIN_PROXY_TYPES) + "; type is \"" + p.type + "\")");
            new PluginValidator(checks).validate(key + ".plugin", p.plugin);
        }
    }
}
