package dev.tunnel.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** YAML and JSON bind like TOML, with the same key checks and {@code file:line} errors; legacy INI is refused by name. */
@Timeout(20)
class ConfigFormatsTest {

    private static SampleConfig parse(String text, String fileName) throws ConfigException {
        return SampleConfig.parseAs(text, fileName, Map.of("HOST", "example.org")::get);
    }

    private static ConfigException errorsOf(String text, String fileName) {
        return catchThrowableOfType(ConfigException.class, () -> parse(text, fileName));
    }

    @Test
    void yamlBindsLikeToml() throws Exception {
        SampleConfig cfg = parse("""
                # frpc.yaml
                serverAddr: "{{ .Envs.HOST }}"
                serverPort: 7001
                transport:
                  tcpMux: false
                  tls:
                    certFile: client.crt
                items:
                  - name: ssh
                    localPort: 22
                  - name: web
                    localPort: 80
                """, "frpc.yaml");
        assertThat(cfg.serverAddr).isEqualTo("example.org");
        assertThat(cfg.serverPort).isEqualTo(7001);
        assertThat(cfg.transport.tcpMux).isFalse();
        assertThat(cfg.transport.tls.certFile).isEqualTo("client.crt");
        assertThat(cfg.items).extracting(i -> i.name + ":" + i.localPort).containsExactly("ssh:22", "web:80");
    }

    @Test
    void jsonBindsLikeToml() throws Exception {
        SampleConfig cfg = parse("""
                {
                  "serverPort": 7001,
                  "transport": {"tls": {"enable": false}},
                  "items": [{"name": "ssh", "localPort": 22}]
                }
                """, "frpc.json");
        assertThat(cfg.serverPort).isEqualTo(7001);
        assertThat(cfg.transport.tls.enable).isFalse();
        assertThat(cfg.items.get(0).localPort).isEqualTo(22);
    }

    @Test
    void unknownKeysAndBadValuesNameTheirYamlLine() {
        ConfigException e = errorsOf("""
                serverPort: 7000
                transport:
                  tcpMx: true
                items:
                  - name: ssh
                    localPort: 70000
                  - name: web
                    localPort: "80"
                """, "c.yml");
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo(String.join("\n",
                "c.yml:3: unknown key \"transport.tcpMx\" (did you mean \"transport.tcpMux\"?)",
                "c.yml:6: items[0].localPort: 70000 (expected: 1-65535)",
                "c.yml:8: items[1].localPort: \"80\" (expected: an integer)",
                "c.yml:8: items[1].localPort: 0 (expected: 1-65535)"));
    }

    @Test
    void unknownKeysAndUnsupportedKeysNameTheirJsonLine() {
        ConfigException e = errorsOf("""
                {
                  "serverPort": 7000,
                  "transport": {
                    "quic": {"keepalivePeriod": 10}
                  },
                  "serverAdr": "x"
                }
                """, "c.json");
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo(String.join("\n",
                "c.json:4: \"transport.quic.keepalivePeriod\" is an frp setting that tunnel does not support yet",
                "c.json:6: unknown key \"serverAdr\" (did you mean \"serverAddr\"?)"));
    }

    @Test
    void syntaxErrorsNameFormatAndLine() {
        assertThat(errorsOf("{\n  \"serverPort\": 7000,\n  oops\n}\n", "c.json").getMessage())
                .startsWith("c.json:3: JSON syntax error: ");
        assertThat(errorsOf("serverPort: 7000\ntransport: [\n", "c.yaml").getMessage())
                .startsWith("c.yaml:").contains("YAML syntax error: ");
        assertThat(errorsOf("[1, 2]", "c.json").getMessage())
                .isEqualTo("c.json:1: the document must be a table of keys (a JSON object or YAML mapping), not a list");
    }

    @Test
    void duplicateKeysAreRefused() {
        assertThat(errorsOf("serverPort: 1\nserverPort: 2\n", "c.yaml").getMessage()).contains("c.yaml:2:")
                .containsIgnoringCase("duplicate");
        assertThat(errorsOf("{\"serverPort\": 1,\n\"serverPort\": 2}", "c.json").getMessage()).contains("c.json:2:")
                .containsIgnoringCase("duplicate");
    }

    @Test
    void yamlAliasesAreRefusedWithTheirLine() {
        ConfigException e = errorsOf("""
                serverAddr: &host example.org
                transport:
                  tls:
                    certFile: *host
                """, "c.yaml");
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).startsWith("c.yaml:4: transport.tls.certFile: YAML alias *host is not supported");
    }

    @Test
    void yamlAliasBombIsRefusedBeforeItExpands() {
        StringBuilder bomb = new StringBuilder("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for (int i = 1; i < 10; i++) {
            bomb.append("a").append(i).append(": &a").append(i).append(" [")
                    .append(("*a" + (i - 1) + ", ").repeat(8)).append("*a").append(i - 1).append("]\n");
        }
        ConfigException e = errorsOf(bomb.toString(), "bomb.yaml");
        assertThat(e).isNotNull();
        assertThat(e.errors()).hasSize(1);
        assertThat(e.getMessage()).contains("YAML alias *a0 is not supported");
    }

    @Test
    void deepNestingIsRefusedInYamlAndJson() {
        int deep = 5000;
        ConfigException json = errorsOf("{\"items\": " + "[".repeat(deep) + "]".repeat(deep) + "}", "c.json");
        assertThat(json).isNotNull();
        assertThat(json.getMessage()).startsWith("c.json:1: values nested 33 levels deep, over the limit of 32");
        ConfigException yaml = errorsOf("items: " + "[".repeat(deep) + "]".repeat(deep) + "\n", "c.yaml");
        assertThat(yaml).isNotNull();
        assertThat(yaml.errors()).hasSize(1);
        assertThat(yaml.getMessage()).contains("over the limit of 32");
    }

    @Test
    void oversizedYamlIsRefusedBeforeParsing(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("big.yaml");
        Files.writeString(file, "serverAddr: \"" + "x".repeat(ConfigLoader.MAX_BYTES) + "\"\n");
        ConfigLoader<SampleConfig> loader = new ConfigLoader<>(SampleConfig.class, SampleConfig.UNSUPPORTED,
                (c, errors) -> { });
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> loader.load(file));
        assertThat(e.getMessage()).contains("over the limit of 1048576");
    }

    @Test
    void legacyIniIsRefusedWithThePointerToToml() {
        String ini = "# frpc.ini\n; old style\n[common]\nserver_addr = 1.2.3.4\nserver_port = 7000\n";
        assertThat(errorsOf(ini, "frpc.toml").getMessage())
                .isEqualTo("frpc.toml: " + LegacyIni.MESSAGE)
                .startsWith("frpc.toml: INI is not supported; convert it to TOML");
        assertThat(errorsOf("[ssh]\ntype = tcp\n", "frpc.ini").getMessage()).contains("INI is not supported");
        assertThat(errorsOf(ini, "frpc.yaml").getMessage()).contains("INI is not supported");
    }

    @Test
    void formatFollowsTheFileName() {
        assertThat(ConfigFormat.of("/etc/frp/frpc.YAML")).isEqualTo(ConfigFormat.YAML);
        assertThat(ConfigFormat.of("frpc.yml")).isEqualTo(ConfigFormat.YAML);
        assertThat(ConfigFormat.of("frpc.json")).isEqualTo(ConfigFormat.JSON);
        assertThat(ConfigFormat.of("frpc.toml")).isEqualTo(ConfigFormat.TOML);
        assertThat(ConfigFormat.of("request body")).isEqualTo(ConfigFormat.TOML);
    }
}
