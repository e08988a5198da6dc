package dev.tunnel.e2e;

import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.config.ConfigException;
import dev.tunnel.server.config.ServerConfig;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The YAML and JSON forms of {@code config/server_full.toml} and {@code config/client_full.toml}
 * (converted here, key for key) bind to the same config as the TOML; an unknown key in either
 * form is named with its own line.
 */
@Timeout(60)
class SampleFormatsTest {

    private static final Path REPO_ROOT = Path.of("").toAbsolutePath().getParent();
    private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"yaml", "json"})
    void serverFullBindsTheSameInEveryFormat(String format) throws Exception {
        Path toml = REPO_ROOT.resolve("config/server_full.toml");
        Path other = convert(toml, "frps." + format);
        assertThat(tree(ServerConfig.load(other, REPO_ROOT))).isEqualTo(tree(ServerConfig.load(toml, REPO_ROOT)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"yaml", "json"})
    void clientFullBindsTheSameInEveryFormat(String format) throws Exception {
        Path toml = REPO_ROOT.resolve("config/client_full.toml");
        Path other = convert(toml, "frpc." + format);
        assertThat(tree(ClientConfig.load(other, REPO_ROOT))).isEqualTo(tree(ClientConfig.load(toml, REPO_ROOT)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"yaml", "json"})
    void anUnknownKeyIsNamedWithItsLine(String format) throws Exception {
        String text = format.equals("yaml")
                ? "serverPort: 7000\nauth:\n  token: x\nproxies:\n  - name: ssh\n    type: tcp\n    localPrt: 22\n"
                : "{\n\"serverPort\": 7000,\n\"auth\": {\"token\": \"x\"},\n\"proxies\": [\n {\"name\": \"ssh\",\n  \"type\": \"tcp\",\n  \"localPrt\": 22}]}\n";
        Path file = Files.writeString(dir.resolve("frpc." + format), text);
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ClientConfig.load(file, REPO_ROOT));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).contains(file + ":7: unknown key \"proxies[0].localPrt\" (did you mean \"proxies[0].localPort\"?)");
    }

    private Path convert(Path toml, String name) throws Exception {
        JsonNode tree = new TomlMapper().readTree(Files.readString(toml));
        ObjectMapper writer = name.endsWith(".yaml") ? new YAMLMapper() : JSON;
        return Files.writeString(dir.resolve(name), writer.writerWithDefaultPrettyPrinter().writeValueAsString(tree));
    }

    private static JsonNode tree(Object config) {
        return JSON.valueToTree(config);
    }
}
