package dev.tunnel.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(10)
class SmallPartsTest {

    private final ConfigErrors errors = new ConfigErrors("f.toml", KeyLocator.scan("a = 1\n[t]\nmode = \"kcp\"\n"));

    @Test
    void errorRendering() {
        assertThat(new ConfigError("c.toml", 12, "proxies[1].localPort", "70000 (expected: 1-65535)"))
                .hasToString("c.toml:12: proxies[1].localPort: 70000 (expected: 1-65535)");
        assertThat(new ConfigError("c.toml", 0, "", "file not found")).hasToString("c.toml: file not found");
        assertThat(new ConfigError("c.toml", 5, "x.y", "unknown key \"x.y\"")).hasToString("c.toml:5: unknown key \"x.y\"");
    }

    @Test
    void suggestions() {
        assertThat(Suggestions.nearest("tcpMx", List.of("tcpMux", "poolCount"))).isEqualTo("tcpMux");
        assertThat(Suggestions.nearest("BINDPORT", List.of("bindPort", "bindAddr"))).isEqualTo("bindPort");
        assertThat(Suggestions.nearest("zzz", List.of("bindPort"))).isNull();
        assertThat(Suggestions.distance("kitten", "sitting")).isEqualTo(3);
    }

    @Test
    void unsupportedKeysMatchParentsAndIgnoreIndexes() {
        UnsupportedKeys keys = UnsupportedKeys.of("webServer", "proxies.transport");
        assertThat(keys.contains("webServer.port")).isTrue();
        assertThat(keys.contains("proxies[3].transport.useEncryption")).isTrue();
        assertThat(keys.contains("proxies[3].name")).isFalse();
        assertThat(keys.contains("webServerX")).isFalse();
    }

    @Test
    void oneOfTellsUnsupportedFromInvalid() {
        ValueChecks checks = new ValueChecks(errors, Path.of("."));
        assertThat(checks.oneOf("t.mode", "kcp", List.of("tcp"), List.of("kcp", "quic"))).isFalse();
        assertThat(checks.oneOf("t.mode", "tpc", List.of("tcp"), List.of("kcp", "quic"))).isFalse();
        assertThat(checks.oneOf("t.mode", "tcp", List.of("tcp"), List.of("kcp", "quic"))).isTrue();
        assertThat(errors.list()).extracting(ConfigError::toString).containsExactly(
                "f.toml:3: t.mode = \"kcp\" is not supported yet (supported: \"tcp\")",
                "f.toml:3: t.mode: \"tpc\" (expected: \"tcp\")");
    }

    @Test
    void numericChecks() {
        ValueChecks checks = new ValueChecks(errors, Path.of("."));
        assertThat(checks.positiveOrDisabled("a", -1)).isTrue();
        assertThat(checks.positiveOrDisabled("a", 0)).isFalse();
        assertThat(checks.bufferSize("a", 0)).isTrue();
        assertThat(checks.bufferSize("a", 100)).isFalse();
        assertThat(checks.atLeast("a", -1, 0)).isFalse();
        assertThat(errors.list()).extracting(ConfigError::message).containsExactly(
                "0 (expected: -1 to disable, or a positive number of seconds)",
                "100 (expected: 0 for the OS default, or 4096-67108864 bytes)",
                "-1 (expected: 0 or more)");
    }

    @Test
    void fileChecksResolveAgainstBaseDir(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("cert.pem"), "x");
        Files.createDirectory(dir.resolve("www"));
        ValueChecks checks = new ValueChecks(errors, dir);
        assertThat(checks.readableFile("a", "cert.pem")).isTrue();
        assertThat(checks.readableFile("a", null)).isTrue();
        assertThat(checks.readableFile("a", "missing.pem")).isFalse();
        assertThat(checks.directory("b", "www")).isTrue();
        assertThat(checks.directory("b", "cert.pem")).isFalse();
        assertThat(errors.list()).extracting(ConfigError::message).containsExactly(
                "file \"missing.pem\" does not exist (looked for " + dir.resolve("missing.pem") + ")",
                "directory \"cert.pem\" does not exist (looked for " + dir.resolve("cert.pem") + ")");
    }
}
