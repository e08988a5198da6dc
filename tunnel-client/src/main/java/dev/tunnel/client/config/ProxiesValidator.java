package dev.tunnel.client.config;

import dev.tunnel.client.proxy.ClientProxyType;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.config.AddressRange;
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
    /** The types a {@code loadBalancer.group} balances (the server checks the same list). */
    static final List<String> GROUP_PROXY_TYPES = List.of("tcp", "http", "https", "tcpmux");

    /** Most entries of {@code allowIPs} or {@code denyIPs}: each is a NEW_PROXY option ({@code Options.MAX_ENTRIES}). */
    static final int MAX_ADDRESS_RULES = 128;

    private final ValueChecks checks;
    private final ClientProxyTypes types;

    ProxiesValidator(ValueChecks checks, ClientProxyTypes types) {
        this.checks = checks;
        this.types = types;
    }

    /**
     * @param tcpMux the client's {@code transport.tcpMux}
     * @param tls    the client's {@code transport.tls.enable} ({@code transport.useEncryption} needs it)
     */
    void validate(List<ProxyConfig> proxies, boolean tcpMux, boolean tls) {
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
            checks.check(!p.transport.useEncryption || tls, key + ".transport.useEncryption",
                    "true needs transport.tls.enable = true: the tunnel encrypts every proxy's traffic with the TLS of"
                            + " its connection to the server, and has no encryption of its own (set"
                            + " transport.tls.enable = true, or useEncryption = false)");
            ClientProxyType type = p.type == null ? null : types.get(p.type);
            if (type == null) {
                continue;
            }
            if (type.needsMux() && !tcpMux) {
                checks.check(false, key + ".type", "\"" + p.type + "\" needs transport.tcpMux = true (pool mode has"
                        + " no streams: a visitor's stream is spliced to a stream of the provider's session)");
            }
            if (p.remotePort != 0 && type.portSpace() == null) {
                checks.check(false, key + ".remotePort", p.remotePort + ": a " + p.type + " proxy has no public port"
                        + " (visitors reach it through the server); remove remotePort");
            } else if (p.remotePort != 0) {
                // UDP ports are a space apart from TCP ones: a tcp and a udp proxy may share a number
                Integer first = remotePorts.putIfAbsent(type.portSpace() + " " + p.remotePort, i);
                boolean sameGroup = first != null && !p.loadBalancer.group.isEmpty()
                        && p.loadBalancer.group.equals(proxies.get(first).loadBalancer.group);
                checks.check(first == null || sameGroup, key + ".remotePort",
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
        healthCheck(key, p);
        loadBalancer(key, p);
        addresses(key + ".allowIPs", p.allowIPs);
        addresses(key + ".denyIPs", p.denyIPs);
        checks.range(key + ".maxNewConnsPerIPPerMinute", p.maxNewConnsPerIPPerMinute, 0, 1_000_000);
        Metadata.check(key + ".metadatas", p.metadatas, checks);
        Metadata.check(key + ".annotations", p.annotations, checks);
        checks.check(!p.transport.useCompression, key + ".transport.useCompression",
                "true is not supported yet: the tunnel does not compress a proxy's traffic (set it to false)");
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

    /** {@code allowIPs} or {@code denyIPs}: addresses or CIDR networks, at most {@value #MAX_ADDRESS_RULES}. */
    private void addresses(String key, List<String> entries) {
        checks.check(entries.size() <= MAX_ADDRESS_RULES, key, entries.size() + " entries (expected: at most "
                + MAX_ADDRESS_RULES + "; they travel in one control message)");
        for (int i = 0; i < entries.size(); i++) {
            try {
                AddressRange.parse(entries.get(i));
            } catch (IllegalArgumentException e) {
                checks.check(false, key + "[" + i + "]", e.getMessage());
            }
        }
    }

    /** {@code healthCheck.*}, as frp checks them (a type of "", "tcp" or "http"; http needs a path). */
    private void healthCheck(String key, ProxyConfig p) {
        HealthCheckConfig h = p.healthCheck;
        key += ".healthCheck";
        if (!checks.oneOf(key + ".type", h.type, List.of("", "tcp", "http"), List.of()) || !h.enabled()) {
            return;
        }
        checks.check(p.plugin == null, key + ".type", "a health check connects to localIP:localPort, and a proxy"
                + " served by a plugin has none (frp skips the check then, without a word; remove healthCheck or the"
                + " plugin)");
        if ("http".equals(h.type)) {
            checks.notBlank(key + ".path", h.path);
        }
        checks.range(key + ".timeoutSeconds", h.timeoutSeconds, 0, 3600);
        checks.range(key + ".maxFailed", h.maxFailed, 0, 1000);
        checks.range(key + ".intervalSeconds", h.intervalSeconds, 0, 86_400);
        for (int i = 0; i < h.httpHeaders.size(); i++) {
            HealthCheckConfig.Header header = h.httpHeaders.get(i);
            checks.check(header.name != null && header.name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+"),
                    key + ".httpHeaders[" + i + "].name", "\"" + header.name + "\" (expected: an HTTP header name)");
            checks.check(header.value != null && header.value.chars().noneMatch(c -> c == '\r' || c == '\n'),
                    key + ".httpHeaders[" + i + "].value", "must not contain a line break");
        }
    }

    /** {@code loadBalancer.*}: groups are for the types whose public side the server balances, as in frp. */
    private void loadBalancer(String key, ProxyConfig p) {
        ProxyConfig.LoadBalancer lb = p.loadBalancer;
        if (lb.group.isEmpty()) {
            checks.check(lb.groupKey.isEmpty(), key + ".loadBalancer.groupKey", "set without loadBalancer.group");
            return;
        }
        checks.check(GROUP_PROXY_TYPES.contains(p.type), key + ".loadBalancer.group", "groups are for proxy types "
                + String.join(", ", GROUP_PROXY_TYPES) + " (type is \"" + p.type + "\")");
        checks.check(lb.group.length() <= Metadata.MAX_NAME, key + ".loadBalancer.group",
                "longer than " + Metadata.MAX_NAME + " characters");
        checks.check(lb.groupKey.length() <= Metadata.MAX_VALUE, key + ".loadBalancer.groupKey",
                "longer than " + Metadata.MAX_VALUE + " characters");
    }
}
