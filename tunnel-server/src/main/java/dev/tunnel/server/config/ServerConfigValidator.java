package dev.tunnel.server.config;

import dev.tunnel.protocol.config.ConfigErrors;
import dev.tunnel.protocol.config.ConfigValidator;
import dev.tunnel.protocol.config.LogSetup;
import dev.tunnel.protocol.config.ValueChecks;

import java.nio.file.Path;
import java.util.List;

/** Checks every server value and reports all problems with the key, the value and what is allowed. */
final class ServerConfigValidator implements ConfigValidator<ServerConfig> {

    static final int MAX_WINDOW = 1_073_741_824;

    private final Path baseDir;

    /** @param baseDir where relative file paths are looked up (the working directory when run for real) */
    ServerConfigValidator(Path baseDir) {
        this.baseDir = baseDir;
    }

    @Override
    public void validate(ServerConfig cfg, ConfigErrors errors) {
        ValueChecks checks = new ValueChecks(errors, baseDir);
        checks.notBlank("bindAddr", cfg.bindAddr);
        checks.port("bindPort", cfg.bindPort);
        checks.atLeast("userConnTimeout", cfg.userConnTimeout, 1);
        checks.atLeast("maxPortsPerClient", cfg.maxPortsPerClient, 0);
        checks.oneOf("auth.method", cfg.auth.method, List.of("token"), List.of("oidc"));
        transport(cfg.transport, checks);
        for (int i = 0; i < cfg.allowPorts.size(); i++) {
            portRange("allowPorts[" + i + "]", cfg.allowPorts.get(i), checks);
        }
        checks.oneOf("log.level", cfg.log.level, LogSetup.LEVELS, List.of());
        checks.notBlank("log.to", cfg.log.to);
    }

    private static void transport(ServerConfig.Transport t, ValueChecks checks) {
        checks.atLeast("transport.tcpMuxKeepaliveInterval", t.tcpMuxKeepaliveInterval, 1);
        checks.positiveOrDisabled("transport.heartbeatTimeout", t.heartbeatTimeout);
        checks.range("transport.maxPoolCount", t.maxPoolCount, 0, 100);
        checks.range("transport.drainTimeout", t.drainTimeout, 0, 3600);
        if (checks.range("transport.tcpMuxInitialWindow", t.tcpMuxInitialWindow, 65_536, MAX_WINDOW)) {
            checks.range("transport.tcpMuxMaxWindow", t.tcpMuxMaxWindow, t.tcpMuxInitialWindow, MAX_WINDOW);
        }
        checks.bufferSize("transport.sendBufferSize", t.sendBufferSize);
        checks.bufferSize("transport.receiveBufferSize", t.receiveBufferSize);
        checks.together("transport.tls.certFile", t.tls.certFile, "transport.tls.keyFile", t.tls.keyFile);
        checks.readableFile("transport.tls.certFile", t.tls.certFile);
        checks.readableFile("transport.tls.keyFile", t.tls.keyFile);
        checks.readableFile("transport.tls.trustedCaFile", t.tls.trustedCaFile);
    }

    private static void portRange(String key, PortRange r, ValueChecks checks) {
        boolean single = r.single != 0;
        boolean range = r.start != 0 || r.end != 0;
        if (single && range) {
            checks.check(false, key, r + " mixes single with start/end (expected: {start = N, end = M} or {single = N})");
        } else if (single) {
            checks.port(key + ".single", r.single);
        } else if (!range) {
            checks.check(false, key, "empty entry (expected: {start = N, end = M} or {single = N}, ports 1-65535)");
        } else if (checks.port(key + ".start", r.start) & checks.port(key + ".end", r.end)) {
            checks.check(r.start <= r.end, key, r + " (expected: start <= end)");
        }
    }
}
