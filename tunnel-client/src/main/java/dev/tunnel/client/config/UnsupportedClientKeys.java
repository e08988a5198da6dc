package dev.tunnel.client.config;

import dev.tunnel.config.UnsupportedKeys;

/** frpc.toml keys that tunnel does not implement yet; each is reported as "not supported yet". */
final class UnsupportedClientKeys {

    static final UnsupportedKeys KEYS = UnsupportedKeys.of(
            "clientID", "metadatas", "start", "includes", "virtualNet", "featureGates",
            "natHoleStunServer", "dnsServer",
            "auth.oidc", "auth.additionalScopes", "auth.tokenSource",
            "transport.connectServerLocalIP", "transport.proxyURL", "transport.quic",
            "transport.dialServerKeepalive", "transport.tls.disableCustomTLSFirstByte",
            "webServer.assetsDir", "webServer.tls.trustedCaFile", "webServer.tls.serverName",
            // per proxy
            "proxies.transport.useEncryption", "proxies.transport.useCompression",
            "proxies.loadBalancer", "proxies.healthCheck",
            "proxies.annotations", "proxies.metadatas", "proxies.enabled",
            // per visitor (xtcp's own keys are reported with its type)
            "visitors.transport", "visitors.plugin", "visitors.enabled", "visitors.protocol", "visitors.keepTunnelOpen",
            "visitors.maxRetriesAnHour", "visitors.minRetryInterval", "visitors.fallbackTo",
            "visitors.fallbackTimeoutMs", "visitors.natTraversal");

    private UnsupportedClientKeys() {
    }
}
