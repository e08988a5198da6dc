package dev.tunnel.client.config;

import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.auth.ChannelBinding;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Checks {@code serverAddrs}, {@code serverMode} and {@code [[servers]]}, naming the key of each problem. */
final class ServersValidator {
    static final String ALL = "all";
    static final String FAILOVER = "failover";
    private static final String DEFAULT_ADDR = new ClientConfig().serverAddr;
    private static final int DEFAULT_PORT = new ClientConfig().serverPort;

    private final ValueChecks checks;

    ServersValidator(ValueChecks checks) {
        this.checks = checks;
    }

    void validate(ClientConfig cfg) {
        boolean several = !cfg.serverAddrs.isEmpty() || !cfg.servers.isEmpty();
        if (!cfg.serverMode.isEmpty()) {
            checks.oneOf("serverMode", cfg.serverMode, List.of(ALL, FAILOVER), List.of());
            checks.check(several, "serverMode", "\"" + cfg.serverMode + "\" needs serverAddrs or [[servers]]");
        }
        if (!several) {
            return;
        }
        checks.check(DEFAULT_ADDR.equals(cfg.serverAddr) && DEFAULT_PORT == cfg.serverPort,
                cfg.serverAddr.equals(DEFAULT_ADDR) ? "serverPort" : "serverAddr",
                "cannot be set with serverAddrs or [[servers]]: list every server there");
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < cfg.serverAddrs.size(); i++) {
            String key = "serverAddrs[" + i + "]";
            try {
                ServerEndpoint.HostPort hp = ServerEndpoint.HostPort.parse(cfg.serverAddrs.get(i));
                unique(seen, key, hp.host(), hp.port());
            } catch (IllegalArgumentException e) {
                checks.check(false, key, e.getMessage());
            }
        }
        for (int i = 0; i < cfg.servers.size(); i++) {
            ServerEntry s = cfg.servers.get(i);
            String key = "servers[" + i + "]";
            boolean ok = checks.notBlank(key + ".addr", s.addr) & checks.port(key + ".port", s.port);
            if (ok) {
                unique(seen, key, s.addr, s.port);
            }
            ServerEntry.Tls tls = s.transport.tls;
            if (tls.serverName != null) {
                checks.notBlank(key + ".transport.tls.serverName", tls.serverName);
            }
            if (tls.serverFingerprint != null) {
                fingerprint(checks, key + ".transport.tls.serverFingerprint", tls.serverFingerprint,
                        cfg.transport.tls.enable);
            }
        }
    }

    /** A pinned certificate fingerprint: "sha256:AB:CD:...", with TLS on. */
    static void fingerprint(ValueChecks checks, String key, String value, boolean tlsEnabled) {
        try {
            checks.check(!ChannelBinding.parse(value).isNone(), key, "must not be empty");
        } catch (IllegalArgumentException e) {
            checks.check(false, key, e.getMessage());
        }
        checks.check(tlsEnabled, key, "needs transport.tls.enable = true");
    }

    private void unique(Map<String, String> seen, String key, String host, int port) {
        String address = host.toLowerCase(java.util.Locale.ROOT) + ":" + port;
        String first = seen.putIfAbsent(address, key);
        checks.check(first == null, key, "duplicate server " + host + ":" + port + " (already " + first + ")");
    }
}
