package dev.tunnel.client.config;

import dev.tunnel.config.ValueChecks;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Checks the {@code [[visitors]]} list: each entry, and names and bind ports used twice. */
final class VisitorsValidator {
    private final ValueChecks checks;

    VisitorsValidator(ValueChecks checks) {
        this.checks = checks;
    }

    /** @param tls the client's {@code transport.tls.enable} ({@code transport.useEncryption} needs it) */
    void validate(List<VisitorConfig> visitors, boolean tcpMux, boolean tls) {
        Map<String, Integer> names = new HashMap<>();
        Map<String, Integer> binds = new HashMap<>();
        for (int i = 0; i < visitors.size(); i++) {
            String key = "visitors[" + i + "]";
            VisitorConfig v = visitors.get(i);
            if (checks.notBlank(key + ".name", v.name)) {
                Integer first = names.putIfAbsent(v.name, i);
                checks.check(first == null, key + ".name",
                        "\"" + v.name + "\" is already the name of visitors[" + first + "] (names must be unique)");
            }
            if (checks.oneOf(key + ".type", v.type, List.of("stcp", "sudp"), List.of("xtcp"))) {
                checks.check(tcpMux, key + ".type", "\"" + v.type + "\" visitors need transport.tcpMux = true (pool"
                        + " mode has no streams: a visitor's stream is spliced to a stream of the provider's session)");
            }
            checks.check(!v.transport.useEncryption || tls, key + ".transport.useEncryption",
                    "true needs transport.tls.enable = true: the tunnel encrypts a visitor's traffic with the TLS of"
                            + " its connection to the server, and has no encryption of its own (set"
                            + " transport.tls.enable = true, or useEncryption = false)");
            checks.check(!v.transport.useCompression, key + ".transport.useCompression",
                    "true is not supported yet: the tunnel does not compress a visitor's traffic (set it to false)");
            checks.notBlank(key + ".serverName", v.serverName);
            checks.check(v.serverUser != null, key + ".serverUser", "missing");
            checks.check(v.secretKey != null, key + ".secretKey", "missing");
            checks.notBlank(key + ".bindAddr", v.bindAddr);
            if (v.bindPort < 0) {
                checks.check(false, key + ".bindPort", v.bindPort + " is not supported: in frp a visitor without a"
                        + " listener is reached only through another visitor's fallbackTo (xtcp) or a visitor plugin"
                        + " (virtual_net), and tunnel has neither, so it could never carry a connection (expected:"
                        + " 1-65535)");
            } else if (checks.port(key + ".bindPort", v.bindPort)) {
                Integer first = binds.putIfAbsent(v.type + " " + v.bindAddr + ":" + v.bindPort, i);
                checks.check(first == null, key + ".bindPort", v.bindPort + " is already used by visitors[" + first + "]");
            }
        }
    }
}
