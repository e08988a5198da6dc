package dev.tunnel.client.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tunnel.config.ConfigError;
import dev.tunnel.config.ConfigException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code serverAddrs}, {@code serverMode} and {@code [[servers]]}: what they mean and what verify says of them. */
@Timeout(30)
class ServersConfigTest {
    private static final String PIN_A = "sha256:" + "aa:".repeat(31) + "aa";
    private static final String PIN_B = "sha256:" + "bb:".repeat(31) + "bb";

    @Test
    void oneServerByDefault() throws Exception {
        ClientConfig cfg = parse("serverAddr = \"vps.example\"\nserverPort = 7001\n");
        assertThat(cfg.serverEndpoints()).containsExactly(new ServerEndpoint("vps.example", 7001, "vps.example", null));
        assertThat(cfg.failover()).isFalse();
    }

    @Test
    void serverAddrsInOrderInAllModeByDefault() throws Exception {
        ClientConfig cfg = parse("""
                serverAddrs = ["vps1.example:7000", "[2001:db8::1]:7443"]
                transport.tls.serverName = "tunnel.example"
                transport.tls.serverFingerprint = "%s"
                """.formatted(PIN_A));
        assertThat(cfg.serverEndpoints()).containsExactly(
                new ServerEndpoint("vps1.example", 7000, "tunnel.example", PIN_A),
                new ServerEndpoint("2001:db8::1", 7443, "tunnel.example", PIN_A));
        assertThat(cfg.serverEndpoints().get(1).address()).isEqualTo("[2001:db8::1]:7443");
        assertThat(cfg.failover()).isFalse();
    }

    @Test
    void serversTablesCarryTheirOwnTlsNameAndFingerprint() throws Exception {
        ClientConfig cfg = parse("""
                serverMode = "failover"
                serverAddrs = ["vps1.example:7000"]
                transport.tls.serverFingerprint = "%s"

                [[servers]]
                addr = "vps2.example"
                port = 7001
                transport.tls.serverName = "vps2.tunnel.example"
                transport.tls.serverFingerprint = "%s"
                """.formatted(PIN_A, PIN_B));
        assertThat(cfg.serverEndpoints()).containsExactly(
                new ServerEndpoint("vps1.example", 7000, "vps1.example", PIN_A),
                new ServerEndpoint("vps2.example", 7001, "vps2.tunnel.example", PIN_B));
        assertThat(cfg.failover()).isTrue();
    }

    @Test
    void verifyNamesTheKeyOfEachProblem() {
        assertThat(messages("""
                serverAddr = "vps.example"
                serverMode = "random"
                serverAddrs = ["vps1.example", "vps1.example:70000", "::1:7000", "vps2.example:7000"]

                [[servers]]
                addr = "VPS2.example"
                port = 7000
                transport.tls.serverFingerprint = "md5:00"

                [[servers]]
                addr = ""
                """)).containsExactly(
                "c.toml:1: serverAddr: cannot be set with serverAddrs or [[servers]]: list every server there",
                "c.toml:2: serverMode: \"random\" (expected: \"all\", \"failover\")",
                "c.toml:3: serverAddrs[0]: \"vps1.example\" (expected: \"host:port\", such as \"vps1.example:7000\""
                        + " or \"[2001:db8::1]:7000\")",
                "c.toml:3: serverAddrs[1]: \"vps1.example:70000\": port 70000 (expected: 1-65535)",
                "c.toml:3: serverAddrs[2]: \"::1:7000\": an IPv6 address goes in brackets (expected: \"host:port\","
                        + " such as \"vps1.example:7000\" or \"[2001:db8::1]:7000\")",
                "c.toml:5: servers[0]: duplicate server VPS2.example:7000 (already serverAddrs[3])",
                "c.toml:8: servers[0].transport.tls.serverFingerprint: \"md5:00\" is not a SHA-256 fingerprint"
                        + " (expected: sha256: and 32 hex bytes, e.g. sha256:AB:CD:...)",
                "c.toml:11: servers[1].addr: must not be empty");
    }

    @Test
    void serverModeNeedsSeveralServers() {
        assertThat(messages("serverMode = \"failover\"\n"))
                .containsExactly("c.toml:1: serverMode: \"failover\" needs serverAddrs or [[servers]]");
    }

    private static ClientConfig parse(String toml) throws ConfigException {
        return ClientConfig.parse(toml, "c.toml", Map.<String, String>of()::get);
    }

    private static List<String> messages(String toml) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(toml));
        assertThat(e).as("expected errors").isNotNull();
        return e.errors().stream().map(ConfigError::toString).toList();
    }
}
