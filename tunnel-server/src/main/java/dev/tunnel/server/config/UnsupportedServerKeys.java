package dev.tunnel.server.config;

import dev.tunnel.config.UnsupportedKeys;

/** frps.toml keys that tunnel does not implement yet; each is reported as "not supported yet". */
final class UnsupportedServerKeys {

    static final UnsupportedKeys KEYS = UnsupportedKeys.of(
            "kcpBindPort", "quicBindPort",
            "webServer.assetsDir", "webServer.tls.trustedCaFile", "webServer.tls.serverName",
            "natholeAnalysisDataReserveHours",
            "sshTunnelGateway",
            "auth.oidc", "auth.additionalScopes",
            "transport.quic");

    private UnsupportedServerKeys() {
    }
}
