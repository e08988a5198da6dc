package dev.tunnel.client.config;

import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.config.ConfigErrors;
import dev.tunnel.config.ConfigValidator;
import dev.tunnel.runtime.LogSetup;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.transport.IoUringSetting;
import dev.tunnel.protocol.transport.Transports;

import java.nio.file.Path;
import java.util.List;

/** Checks every client value (proxies via {@link ProxiesValidator}) and reports all problems. */
final class ClientConfigValidator implements ConfigValidator<ClientConfig> {

    static final int MAX_WINDOW = 1_073_741_824;

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
        checks.oneOf("auth.method", cfg.auth.method, List.of("token"), List.of("oidc"));
        String token = checks.secret("auth.token", cfg.auth.token, "auth.tokenFile", cfg.auth.tokenFile);
        if (token != null) {
            cfg.auth.token = token; // completes the config: the rest of the client only reads auth.token
        }
        if (checks.check(cfg.user != null, "user", "missing")) {
            checks.check(cfg.user.chars().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c) || c == '.'),
                    "user", "\"" + cfg.user + "\" (expected: no spaces, dots or control characters)");
        }
        transport(cfg.transport, checks);
        checks.oneOf("log.level", cfg.log.level, LogSetup.LEVELS, List.of());
        checks.notBlank("log.to", cfg.log.to);
        checks.range("udpPacketSize", cfg.udpPacketSize, 1, 65535);
        checks.range("log.maxDays", cfg.log.maxDays, 0, 3650);
        cfg.webServer.validate("webServer", checks);
        new ProxiesValidator(checks, types).validate(cfg.proxies, cfg.transport.tcpMux, cfg.transport.tls.enable);
        Metadata.check("metadatas", cfg.metadatas, checks);
        checks.check(cfg.transport.tls.disableCustomTLSFirstByte, "transport.tls.disableCustomTLSFirstByte",
                "false is not supported: TLS to the server starts with its first byte (frp's default, true), and"
                        + " a server behind nginx or HAProxy needs it so");
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
        checks.atLeast("transport.dialServerTimeout", t.dialServerTimeout, 1);
        checks.atLeast("transport.tcpMuxKeepaliveInterval", t.tcpMuxKeepaliveInterval, 1);
        checks.range("transport.poolCount", t.poolCount, 0, 100);
        checks.range("transport.drainTimeout", t.drainTimeout, 0, 3600);
        boolean interval = checks.positiveOrDisabled("transport.heartbeatInterval", t.heartbeatInterval);
        boolean timeout = checks.positiveOrDisabled("transport.heartbeatTimeout", t.heartbeatTimeout);
        if (interval && timeout && t.heartbeatInterval > 0 && t.heartbeatTimeout > 0) {
            checks.check(t.heartbeatTimeout >= t.heartbeatInterval, "transport.heartbeatTimeout",
                    t.heartbeatTimeout + " (expected: at least transport.heartbeatInterval, " + t.heartbeatInterval + ")");
        }
        if (checks.range("transport.tcpMuxInitialWindow", t.tcpMuxInitialWindow, 65_536, MAX_WINDOW)) {
            checks.range("transport.tcpMuxMaxWindow", t.tcpMuxMaxWindow, t.tcpMuxInitialWindow, MAX_WINDOW);
            checks.range("transport.tcpMuxSessionWindow", t.tcpMuxSessionWindow,
                    Math.max(1L << 20, t.tcpMuxInitialWindow), 1L << 40);
        }
        if (t.tcpMuxMemoryLimit != 0) {
            checks.range("transport.tcpMuxMemoryLimit", t.tcpMuxMemoryLimit, 1L << 20, 1L << 40);
        }
        checks.bufferSize("transport.sendBufferSize", t.sendBufferSize);
        checks.bufferSize("transport.receiveBufferSize", t.receiveBufferSize);
        checks.range("transport.eventLoopThreads", t.eventLoopThreads, 0, Transports.MAX_THREADS);
        checks.oneOf("transport.ioUring", t.ioUring, IoUringSetting.VALUES, List.of());
        checks.check(!"on".equals(t.ioUring) || t.tcpMux, "transport.ioUring", IoUringSetting.NOT_WITH_POOL_MODE);
        checks.together("transport.tls.certFile", t.tls.certFile, "transport.tls.keyFile", t.tls.keyFile);
        checks.readableFile("transport.tls.certFile", t.tls.certFile);
        checks.readableFile("transport.tls.keyFile", t.tls.keyFile);
        checks.readableFile("transport.tls.trustedCaFile", t.tls.trustedCaFile);
        if (t.tls.serverFingerprint != null) {
            try {
                checks.check(!ChannelBinding.parse(t.tls.serverFingerprint).isNone(), "transport.tls.serverFingerprint",
                        "must not be empty");
            } catch (IllegalArgumentException e) {
                checks.check(false, "transport.tls.serverFingerprint", e.getMessage());
            }
            checks.check(t.tls.enable, "transport.tls.serverFingerprint", "needs transport.tls.enable = true");
        }
        if (t.tls.serverName != null) {
            checks.notBlank("transport.tls.serverName", t.tls.serverName);
        }
    }
}
