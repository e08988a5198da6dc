package dev.tunnel.server.config;

import dev.tunnel.config.UnsupportedKeys;

/** frps.toml keys that tunnel does not implement yet; each is reported as "not supported yet". */
final class UnsupportedServerKeys {

    static final UnsupportedKeys KEYS = UnsupportedKeys.of(
            "kcpBindPort", "quicBindPort", "tcpmuxHTTPConnectPort", "tcpmuxPassthrough", "webServer",
            "enablePrometheus", "detailedErrorsToClient", "natholeAnalysisDataReserveHours", "udpPacketSize",
            "httpPlugins", "sshTunnelGateway",
            "auth.oidc", "auth.additionalScopes", "auth.tokenSource",
            "transport.quic", "transport.tcpKeepalive",
            "log.maxDays", "log.disablePrintColor");

    private UnsupportedServerKeys() {
    }
}
