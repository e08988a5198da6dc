package dev.tunnel.client.config;

import dev.tunnel.config.UnsupportedKeys;

/** frpc.toml keys that tunnel does not implement yet; each is reported as "not supported yet". */
final class UnsupportedClientKeys {

    static final UnsupportedKeys KEYS = UnsupportedKeys.of(
            "includes", "virtualNet", "featureGates",
            "natHoleStunServer", "dnsServer",
            "auth.oidc", "auth.additionalScopes", "auth.tokenSource",
            "transport.proxyURL", "transport.quic",
            "webServer.assetsDir", "webServer.tls.trustedCaFile", "webServer.tls.serverName",
            // per proxy
            "proxies.multiplexer", "proxies.natTraversal",
            // per visitor (xtcp's own keys are reported with its type)
            "visitors.plugin", "visitors.protocol", "visitors.keepTunnelOpen",
            "visitors.maxRetriesAnHour", "visitors.minRetryInterval", "visitors.fallbackTo",
            "visitors.fallbackTimeoutMs", "visitors.natTraversal",
            // keys of frp plugins other than static_file
            "proxies.plugin.unixPath", "proxies.plugin.localAddr", "proxies.plugin.crtPath",
            "proxies.plugin.keyPath", "proxies.plugin.hostHeaderRewrite", "proxies.plugin.requestHeaders",
            "proxies.plugin.username", "proxies.plugin.password", "proxies.plugin.enableHTTP2");

    private UnsupportedClientKeys() {
    }
}
