package dev.tunnel.client.config;

import dev.tunnel.config.UnsupportedKeys;

/** frpc.toml keys that tunnel does not implement yet; each is reported as "not supported yet". */
final class UnsupportedClientKeys {

    static final UnsupportedKeys KEYS = UnsupportedKeys.of(
            "clientID", "metadatas", "start", "includes", "webServer", "virtualNet", "featureGates",
            "udpPacketSize", "natHoleStunServer", "dnsServer", "visitors",
            "auth.oidc", "auth.additionalScopes", "auth.tokenSource",
            "transport.connectServerLocalIP", "transport.proxyURL", "transport.quic",
            "transport.dialServerKeepalive", "transport.tls.disableCustomTLSFirstByte",
            "log.maxDays", "log.disablePrintColor",
            // per proxy
            "proxies.transport.useEncryption", "proxies.transport.useCompression", "proxies.transport.bandwidthLimit",
            "proxies.transport.bandwidthLimitMode", "proxies.loadBalancer", "proxies.healthCheck",
            "proxies.annotations", "proxies.metadatas", "proxies.secretKey",
            "proxies.allowUsers", "proxies.multiplexer", "proxies.enabled",
            // keys of frp plugins other than static_file
            "proxies.plugin.unixPath", "proxies.plugin.localAddr", "proxies.plugin.crtPath",
            "proxies.plugin.keyPath", "proxies.plugin.hostHeaderRewrite", "proxies.plugin.requestHeaders",
            "proxies.plugin.username", "proxies.plugin.password", "proxies.plugin.enableHTTP2");

    private UnsupportedClientKeys() {
    }
}
