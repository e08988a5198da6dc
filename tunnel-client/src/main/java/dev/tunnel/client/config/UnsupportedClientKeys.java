package dev.tunnel.client.config;

import dev.tunnel.config.UnsupportedKeys;

/** frpc.toml keys that tunnel does not implement yet; each is reported as "not supported yet". */
final class UnsupportedClientKeys {

    static final UnsupportedKeys KEYS = UnsupportedKeys.of(
            "virtualNet", "featureGates",
            "natHoleStunServer", "dnsServer", "store",
            "auth.oidc", "auth.additionalScopes",
            "transport.proxyURL", "transport.quic",
            "webServer.assetsDir", "webServer.tls.trustedCaFile", "webServer.tls.serverName",
            // per proxy
            "proxies.natTraversal",
            // per visitor (xtcp's own keys are reported with its type)
            "visitors.plugin", "visitors.protocol", "visitors.keepTunnelOpen",
            "visitors.maxRetriesAnHour", "visitors.minRetryInterval", "visitors.fallbackTo",
            "visitors.fallbackTimeoutMs", "visitors.natTraversal");

    private UnsupportedClientKeys() {
    }
}
