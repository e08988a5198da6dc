package dev.tunnel.server.config;

import dev.tunnel.config.ConfigErrors;
import dev.tunnel.config.ConfigValidator;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.auth.TokenVerifier;
import dev.tunnel.protocol.transport.IoUringSetting;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.server.inbound.TrustedSources;
import dev.tunnel.server.plugin.PluginEndpoint;
import dev.tunnel.server.plugin.PluginOp;
import dev.tunnel.server.proxy.ServerProxyType;
import dev.tunnel.server.proxy.ServerProxyTypes;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks every server value and reports all problems with the key, the value and what is allowed;
 * the keys a proxy type reads are checked by the type ({@code ServerProxyType#validate}).
 */
final class ServerConfigValidator implements ConfigValidator<ServerConfig> {

    private final Path baseDir;
    private final ServerProxyTypes types;

    /**
     * @param baseDir where relative file paths are looked up (the working directory when run for real)
     * @param types   the proxy types whose server keys are checked too
     */
    ServerConfigValidator(Path baseDir, ServerProxyTypes types) {
        this.baseDir = baseDir;
        this.types = types;
    }

    @Override
    public void validate(ServerConfig cfg, ConfigErrors errors) {
        ValueChecks checks = new ValueChecks(errors, baseDir);
        checks.notBlank("bindAddr", cfg.bindAddr);
        checks.port("bindPort", cfg.bindPort);
        checks.atLeast("userConnTimeout", cfg.userConnTimeout, 1);
        checks.atLeast("maxPortsPerClient", cfg.maxPortsPerClient, 0);
        checks.atLeast("maxProxiesPerClient", cfg.maxProxiesPerClient, 0);
        checks.range("udpPacketSize", cfg.udpPacketSize, 1, 65535);
        cfg.auth.validate("auth", checks);
        verifier("auth.tokenVerifier", cfg.auth.tokenVerifier, "auth.token", cfg.auth.token, cfg.auth.pake, checks);
        checks.atLeast("auth.maxFailedLogins", cfg.auth.maxFailedLogins, 0);
        checks.atLeast("auth.failedLoginBlockSeconds", cfg.auth.failedLoginBlockSeconds, 1);
        users(cfg.users, cfg.auth.pake, checks);
        httpPlugins(cfg.httpPlugins, checks);
        for (ServerProxyType type : types.all()) {
            type.validate(cfg, checks);
        }
        transport(cfg.transport, checks);
        for (int i = 0; i < cfg.allowPorts.size(); i++) {
            portRange("allowPorts[" + i + "]", cfg.allowPorts.get(i), checks);
        }
        for (int i = 0; i < cfg.proxyProtocolTrustedIPs.size(); i++) {
            String problem = TrustedSources.problem(cfg.proxyProtocolTrustedIPs.get(i));
            checks.check(problem == null, "proxyProtocolTrustedIPs[" + i + "]", problem);
        }
        cfg.log.validate("log", checks);
        cfg.webServer.validate("webServer", checks);
        checks.check(!cfg.enablePrometheus || cfg.webServer.enabled(), "enablePrometheus",
                "true needs webServer.port (the metrics are served by the web server at /metrics)");
    }

    /**
     * A token verifier that parses, set instead of the token (not beside it), and a PAKE login
     * that is not off, since no other login can use it.
     */
    private static void verifier(String key, String verifier, String tokenKey, String token, String pake,
                                 ValueChecks checks) {
        if (verifier == null) {
            return;
        }
        try {
            TokenVerifier.parse(verifier);
        } catch (IllegalArgumentException e) {
            checks.check(false, key, e.getMessage());
            return;
        }
        checks.check(token == null || token.isEmpty(), key, "set together with " + tokenKey + " (expected: one of them)");
        checks.check(!"off".equals(pake), key, "needs the PAKE login, but auth.pake = \"off\" (expected: \"preferred\""
                + " or \"required\"; only PAKE-capable clients can log in with a verifier)");
    }

    private static void users(List<ServerConfig.User> users, String pake, ValueChecks checks) {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < users.size(); i++) {
            ServerConfig.User u = users.get(i);
            String key = "users[" + i + "]";
            if (uniqueName(key + ".name", u.name, names, checks)) {
                checks.check(u.name.chars().noneMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c) || c == '.'),
                        key + ".name", "\"" + u.name + "\" (expected: no spaces, dots or control characters)");
            }
            String token = checks.secret(key + ".token", u.token, key + ".tokenFile", u.tokenFile);
            if (u.tokenFile == null && u.tokenVerifier == null) {
                checks.check(token != null && !token.isEmpty(), key + ".token",
                        "missing (every user needs its own token, tokenFile or tokenVerifier)");
            }
            verifier(key + ".tokenVerifier", u.tokenVerifier, key + ".token", token, pake, checks);
            if (token != null) {
                u.token = token;
            }
            checks.atLeast(key + ".maxPortsPerClient", u.maxPortsPerClient, -1);
            for (int j = 0; j < u.allowPorts.size(); j++) {
                portRange(key + ".allowPorts[" + j + "]", u.allowPorts.get(j), checks);
            }
        }
    }

    private static void httpPlugins(List<ServerConfig.HttpPlugin> plugins, ValueChecks checks) {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < plugins.size(); i++) {
            ServerConfig.HttpPlugin p = plugins.get(i);
            String key = "httpPlugins[" + i + "]";
            uniqueName(key + ".name", p.name, names, checks);
            boolean pathOk = checks.check(p.path == null || p.path.isEmpty() || p.path.startsWith("/"), key + ".path",
                    "\"" + p.path + "\" (expected: empty or starting with /)");
            if (checks.notBlank(key + ".addr", p.addr)) {
                try {
                    PluginEndpoint.parse(p.addr, pathOk ? p.path : "");
                } catch (IllegalArgumentException e) {
                    checks.check(false, key + ".addr", e.getMessage());
                }
            }
            for (int j = 0; j < p.ops.size(); j++) {
                checks.check(PluginOp.byName(p.ops.get(j)) != null, key + ".ops[" + j + "]", "\"" + p.ops.get(j)
                        + "\" (expected one of: " + String.join(", ", PluginOp.NAMES) + ")");
            }
        }
    }

    /** A name that is set and not in {@code names} yet (which it joins); false when it is blank. */
    private static boolean uniqueName(String key, String name, Set<String> names, ValueChecks checks) {
        if (!checks.notBlank(key, name)) {
            return false;
        }
        checks.check(names.add(name), key, "\"" + name + "\" is listed twice");
        return true;
    }

    private static void transport(ServerConfig.Transport t, ValueChecks checks) {
        checks.atLeast("transport.loginTimeout", t.loginTimeout, 1);
        checks.atLeast("transport.maxStreamsPerClient", t.maxStreamsPerClient, 0);
        checks.atLeast("transport.maxConnectionsPerProxy", t.maxConnectionsPerProxy, 0);
        checks.atLeast("transport.maxConnectionsPerIP", t.maxConnectionsPerIP, 0);
        checks.atLeast("transport.handshakeRatePerIP", t.handshakeRatePerIP, 0);
        checks.atLeast("transport.handshakeBurstPerIP", t.handshakeBurstPerIP, 1);
        checks.atLeast("transport.handshakeRate", t.handshakeRate, 0);
        t.validate("transport", checks, Transports.MAX_THREADS, IoUringSetting.VALUES);
        if (t.tls.selfSignedDir != null) {
            checks.notBlank("transport.tls.selfSignedDir", t.tls.selfSignedDir);
        }
        checks.positiveOrDisabled("transport.heartbeatTimeout", t.heartbeatTimeout);
        checks.range("transport.maxPoolCount", t.maxPoolCount, 0, 100);
        checks.range("transport.drainTimeout", t.drainTimeout, 0, 3600);
        t.tls.validate("transport.tls", checks);
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
