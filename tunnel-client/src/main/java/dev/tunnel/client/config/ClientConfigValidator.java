package dev.tunnel.client.config;

import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.config.ConfigErrors;
import dev.tunnel.config.ConfigValidator;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.transport.IoUringSetting;
import dev.tunnel.protocol.transport.Transports;

import java.nio.file.Path;
import java.util.List;

/** Checks every client value (proxies via {@link ProxiesValidator}) and reports all problems. */
final class ClientConfigValidator implements ConfigValidator<ClientConfig> {

    private final Path baseDir;
    private final ClientProxyTypes types;

    /**
     * @param baseDir where relative file paths are looked up (the working directory when run for real)
     * @param types   the proxy types a {@code [[proxies]]} entry may have
     */
    ClientConfigValidator(Path baseDir, ClientProxyTypes types) {
        this.baseDir = baseDir;
        this.types = types;
    }

    @Override
    public void validate(ClientConfig cfg, ConfigErrors errors) {
        ValueChecks checks = new ValueChecks(errors, baseDir);
        checks.notBlank("serverAddr", cfg.serverAddr);
        checks.port("serverPort", cfg.serverPort);
        new ServersValidator(checks).validate(cfg);
        cfg.auth.validate("auth", checks);
        if (checks.check(cfg.user != null, "user", "missing")) {
            checks.check(cfg.user.chars().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c) || c == '.'),
                    "user", "\"" + cfg.user + "\" (expected: no spaces, dots or control characters)");
        }
        transport(cfg.transport, checks);
        cfg.log.validate("log", checks);
        checks.range("udpPacketSize", cfg.udpPacketSize, 1, 65535);
        cfg.webServer.validate("webServer", checks);
        new ProxiesValidator(checks, types).validate(cfg.proxies, cfg.transport.tcpMux, cfg.transport.tls.enable);
        Metadata.check("metadatas", cfg.metadatas, checks);
        checks.check(cfg.transport.tls.disableCustomTLSFirstByte, "transport.tls.disableCustomTLSFirstByte",
                "false is not supported: TLS to the server starts with its first byte (frp's default, true), and"
                        + " a server behind nginx or HAProxy needs it so");
        new Includes(baseDir, types).merge(cfg, checks);
        for (int i = 0; i < cfg.start.size(); i++) {
            String name = cfg.start.get(i);
            checks.check(cfg.proxies.stream().anyMatch(p -> name.equals(p.name))
                    || cfg.visitors.stream().anyMatch(v -> name.equals(v.name)), "start[" + i + "]",
                    "\"" + name + "\" names no proxy or visitor of this file");
        }
        checks.check(cfg.clientID.length() <= Metadata.MAX_VALUE, "clientID",
                "longer than " + Metadata.MAX_VALUE + " characters");
        if (!cfg.transport.connectServerLocalIP.isEmpty()) {
            checks.check(Metadata.isIpLiteral(cfg.transport.connectServerLocalIP), "transport.connectServerLocalIP",
                    "\"" + cfg.transport.connectServerLocalIP + "\" (expected: an IP address of this machine, such as"
                            + " \"192.168.1.10\"; \"\" = any)");
        }
        new VisitorsValidator(checks).validate(cfg.visitors, cfg.transport.tcpMux, cfg.transport.tls.enable);
    }

    private static void transport(ClientConfig.Transport t, ValueChecks checks) {
        checks.oneOf("transport.protocol", t.protocol, List.of("tcp"), List.of("kcp", "quic", "websocket", "wss"));
        checks.oneOf("transport.wireProtocol", t.wireProtocol, List.of("v1"), List.of("v2"));
        checks.atLeast("transport.dialServerTimeout", t.dialServerTimeout, 1);
        checks.range("transport.poolCount", t.poolCount, 0, 100);
        checks.range("transport.drainTimeout", t.drainTimeout, 0, 3600);
        boolean interval = checks.positiveOrDisabled("transport.heartbeatInterval", t.heartbeatInterval);
        boolean timeout = checks.positiveOrDisabled("transport.heartbeatTimeout", t.heartbeatTimeout);
        if (interval && timeout && t.heartbeatInterval > 0 && t.heartbeatTimeout > 0) {
            checks.check(t.heartbeatTimeout >= t.heartbeatInterval, "transport.heartbeatTimeout",
                    t.heartbeatTimeout + " (expected: at least transport.heartbeatInterval, " + t.heartbeatInterval + ")");
        }
        t.validate("transport", checks, Transports.MAX_THREADS, IoUringSetting.VALUES);
        t.tls.validate("transport.tls", checks);
        if (t.tls.serverFingerprint != null) {
            ServersValidator.fingerprint(checks, "transport.tls.serverFingerprint", t.tls.serverFingerprint, t.tls.enable);
        }
        if (t.tls.serverName != null) {
            checks.notBlank("transport.tls.serverName", t.tls.serverName);
        }
    }
}
