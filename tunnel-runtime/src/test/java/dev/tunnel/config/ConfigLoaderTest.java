package dev.tunnel.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

@Timeout(10)
class ConfigLoaderTest {

    @Test
    void emptyFileGivesDefaults() throws Exception {
        SampleConfig cfg = SampleConfig.parse("");
        assertThat(cfg.serverAddr).isEqualTo("127.0.0.1");
        assertThat(cfg.serverPort).isEqualTo(7000);
        assertThat(cfg.transport.tcpMux).isTrue();
        assertThat(cfg.transport.tls.certFile).isNull();
        assertThat(cfg.items).isEmpty();
    }

    @Test
    void bindsTablesDottedKeysAndArraysOfTables() throws Exception {
        SampleConfig cfg = SampleConfig.parse("""
                serverAddr = "example.org"
                [transport]
                poolCount = 3
                tls.enable = false
                [[items]]
                name = "a"
                localPort = 22
                [[items]]
                name = "b"
                localPort = 80
                """);
        assertThat(cfg.serverAddr).isEqualTo("example.org");
        assertThat(cfg.transport.tls.enable).isFalse();
        assertThat(cfg.transport.poolCount).isEqualTo(3);
        assertThat(cfg.transport.tcpMux).isTrue();
        assertThat(cfg.items).extracting(i -> i.name).containsExactly("a", "b");
    }

    @Test
    void syntaxErrorNamesTheLine() {
        ConfigException e = errorsOf("serverPort = 7000\n\nserverAddr = \n");
        assertThat(e.errors()).hasSize(1);
        assertThat(e.errors().get(0).line()).isEqualTo(3);
        assertThat(e.getMessage()).startsWith("test.toml:3: TOML syntax error:");
    }

    @Test
    void unclosedArrayTableHeaderPointsAtTheHeader() {
        ConfigException e = errorsOf("serverPort = 7000\n[[items]\n\n# note\nname = \"a\"\n");
        assertThat(e.errors().get(0).line()).isEqualTo(2);
        assertThat(e.getMessage()).startsWith("test.toml:2: TOML syntax error:");
    }

    @Test
    void duplicateKeyNamesTheSecondAssignment() {
        ConfigException e = errorsOf("[transport]\npoolCount = 1\ntcpMux = true\npoolCount = 2\n# end\n");
        assertThat(e.getMessage()).isEqualTo("test.toml:4: transport.poolCount: duplicate key (TOML syntax error)");
    }

    @Test
    void unknownKeySuggestsNearestKeyWithLine() {
        ConfigException e = errorsOf("serverPort = 7000\n\n[transport]\ntcpMx = true\n");
        assertThat(e.getMessage())
                .isEqualTo("test.toml:4: unknown key \"transport.tcpMx\" (did you mean \"transport.tcpMux\"?)");
    }

    @Test
    void unknownKeyIsCaseInsensitiveForSuggestion() {
        ConfigException e = errorsOf("serverport = 7000\n");
        assertThat(e.getMessage()).contains("unknown key \"serverport\" (did you mean \"serverPort\"?)");
    }

    @Test
    void misplacedKeySuggestsWhereItBelongs() {
        ConfigException e = errorsOf("tcpMux = false\n");
        assertThat(e.getMessage()).isEqualTo("test.toml:1: unknown key \"tcpMux\" (did you mean \"transport.tcpMux\"?)");
    }

    @Test
    void unknownKeyWithoutCloseMatchHasNoSuggestion() {
        ConfigException e = errorsOf("[transport]\nsomethingElse = 1\n");
        assertThat(e.getMessage()).isEqualTo("test.toml:2: unknown key \"transport.somethingElse\"");
    }

    @Test
    void unknownKeyInArrayOfTablesHasIndexAndLine() {
        ConfigException e = errorsOf("[[items]]\nname = \"a\"\nlocalPort = 1\n[[items]]\nname = \"b\"\nlocalPrt = 2\n");
        assertThat(e.errors()).extracting(ConfigError::toString).contains(
                "test.toml:6: unknown key \"items[1].localPrt\" (did you mean \"items[1].localPort\"?)");
    }

    @Test
    void frpKeyNotSupportedYetIsADistinctError() {
        ConfigException e = errorsOf("[webServer]\naddr = \"0.0.0.0\"\nport = 7500\n[transport]\nquic.keepalivePeriod = 10\n");
        assertThat(e.errors()).extracting(ConfigError::toString).containsExactly(
                "test.toml:2: \"webServer.addr\" is an frp setting that tunnel does not support yet",
                "test.toml:3: \"webServer.port\" is an frp setting that tunnel does not support yet",
                "test.toml:5: \"transport.quic.keepalivePeriod\" is an frp setting that tunnel does not support yet");
    }

    @Test
    void frpKeyNotSupportedInsideArrayOfTables() {
        ConfigException e = errorsOf("[[items]]\nname = \"a\"\nlocalPort = 1\ntransport.useEncryption = true\n");
        assertThat(e.getMessage()).isEqualTo(
                "test.toml:4: \"items[0].transport.useEncryption\" is an frp setting that tunnel does not support yet");
    }

    @Test
    void wrongTypesNameKeyValueAndExpectation() {
        ConfigException e = errorsOf("serverPort = \"7000\"\nserverAddr = 5\n[transport]\ntcpMux = \"yes\"\npoolCount = 1.5\n");
        assertThat(e.errors()).extracting(ConfigError::toString).containsExactly(
                "test.toml:1: serverPort: \"7000\" (expected: an integer)",
                "test.toml:2: serverAddr: 5 (expected: a string in quotes)",
                "test.toml:4: transport.tcpMux: \"yes\" (expected: true or false)",
                "test.toml:5: transport.poolCount: 1.5 (expected: an integer)");
    }

    @Test
    void tableWhereValueExpectedAndViceVersa() {
        ConfigException e = errorsOf("transport = 3\nitems = {name = \"x\"}\n");
        assertThat(e.errors()).extracting(ConfigError::toString).containsExactly(
                "test.toml:1: transport: 3 (expected: a table)",
                "test.toml:2: items: {\"name\":\"x\"} (expected: an array [...])");
    }

    @Test
    void valueErrorsFromValidatorCarryLines() {
        ConfigException e = errorsOf("[[items]]\nname = \"a\"\nlocalPort = 22\n[[items]]\nname = \"b\"\nlocalPort = 70000\n");
        assertThat(e.getMessage()).isEqualTo("test.toml:6: items[1].localPort: 70000 (expected: 1-65535)");
    }

    @Test
    void collectsEveryErrorInFileOrder() {
        ConfigException e = errorsOf("""
                serverPort = 0
                serverAdr = "x"
                [transport]
                tcpMux = 1
                [webServer]
                port = 7500
                """);
        assertThat(e.errors()).extracting(ConfigError::line).containsExactly(1, 2, 4, 6);
        assertThat(e.getMessage().split("\n")).hasSize(4);
    }

    @Test
    void envTemplatesAreExpandedInStrings() throws Exception {
        SampleConfig cfg = SampleConfig.parse("serverAddr = \"{{ .Envs.HOST }}.example.org\"\n",
                Map.of("HOST", "vps")::get);
        assertThat(cfg.serverAddr).isEqualTo("vps.example.org");
    }

    @Test
    void unsetEnvVariableIsNamed() {
        ConfigException e = catchThrowableOfType(ConfigException.class,
                () -> SampleConfig.parse("\nserverAddr = \"{{ .Envs.TUNNEL_HOST }}\"\n", name -> null));
        assertThat(e.getMessage()).isEqualTo(
                "test.toml:2: serverAddr: environment variable TUNNEL_HOST is not set (used as \"{{ .Envs.TUNNEL_HOST }}\")");
    }

    @Test
    void otherTemplateFunctionsAreReported() {
        ConfigException e = errorsOf("serverAddr = \"{{ parseNumberRange \\\"1-2\\\" }}\"\n");
        assertThat(e.getMessage()).contains("unsupported template").contains("only {{ .Envs.NAME }} is supported");
    }

    @Test
    void missingFileIsReportedWithItsPath() {
        ConfigLoader<SampleConfig> loader = new ConfigLoader<>(SampleConfig.class, SampleConfig.UNSUPPORTED, (c, e) -> { });
        assertThatThrownBy(() -> loader.load(Path.of("no/such/file.toml")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("no/such/file.toml: file not found");
    }

    @Test
    void exceptionNeedsAnError() {
        assertThatThrownBy(() -> new ConfigException(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    private static ConfigException errorsOf(String toml) {
        return catchThrowableOfType(ConfigException.class, () -> SampleConfig.parse(toml));
    }
}
