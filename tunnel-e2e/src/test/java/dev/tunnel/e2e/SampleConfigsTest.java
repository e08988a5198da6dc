package dev.tunnel.e2e;

import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.server.config.ServerConfig;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Every file in the repo's {@code config/} folder must load without errors: server*.toml as a
 * server config, client*.toml as a client config, any other name fails. Relative paths in the
 * files (the static_file {@code ./docs}) are resolved against the repo root, where the README
 * runs them from.
 */
@Timeout(30)
class SampleConfigsTest {

    /** Surefire runs in the module directory; the repo root is its parent. */
    private static final Path REPO_ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Path CONFIG_DIR = REPO_ROOT.resolve("config");

    @TestFactory
    Stream<DynamicTest> everySampleLoads() throws IOException {
        List<Path> files = tomlFiles();
        assertThat(files).extracting(f -> f.getFileName().toString())
                .contains("server.toml", "client.toml", "server_full.toml", "client_full.toml");
        return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> load(file)));
    }

    @Test
    void minimalPairWorksTogether() throws Exception {
        ServerConfig server = ServerConfig.load(CONFIG_DIR.resolve("server.toml"), REPO_ROOT);
        ClientConfig client = ClientConfig.load(CONFIG_DIR.resolve("client.toml"), REPO_ROOT);
        assertThat(client.serverPort).isEqualTo(server.bindPort).isEqualTo(7000);
        assertThat(client.auth.token).isEqualTo(server.auth.token).isNotEmpty();
        assertThat(server.isPortAllowed(6000)).isTrue();
        assertThat(server.isPortAllowed(7000)).isTrue();
        ProxyConfig web = client.proxies.get(0);
        assertThat(web.name).isEqualTo("web");
        assertThat(web.remotePort).isEqualTo(6080);
        assertThat(server.isPortAllowed(web.remotePort)).isTrue();
        assertThat(web.plugin.type).isEqualTo("static_file");
        assertThat(REPO_ROOT.resolve(web.plugin.localPath)).isDirectory();
        assertThat(web.plugin.stripPrefix).isEmpty();
    }

    @Test
    void severalServersSampleListsThreeServersEachWithItsPin() throws Exception {
        ClientConfig client = ClientConfig.load(CONFIG_DIR.resolve("client_servers.toml"), REPO_ROOT);
        assertThat(client.serverEndpoints()).extracting(dev.tunnel.client.config.ServerEndpoint::address)
                .containsExactly("vps1.example.com:7000", "vps2.example.com:7000", "vps3.example.net:7443");
        assertThat(client.serverEndpoints().get(2).serverName()).isEqualTo("tunnel.example.net");
        assertThat(client.serverEndpoints().get(2).fingerprint()).isNotEqualTo(client.serverEndpoints().get(0).fingerprint());
        assertThat(client.failover()).isFalse();
    }

    private static void load(Path file) throws Exception {
        String name = file.getFileName().toString();
        if (name.startsWith("server")) {
            ServerConfig.load(file, REPO_ROOT);
        } else if (name.startsWith("client")) {
            ClientConfig.load(file, REPO_ROOT);
        } else {
            fail("config/" + name + ": name must start with \"server\" or \"client\" so this test knows how to load it");
        }
    }

    private static List<Path> tomlFiles() throws IOException {
        assertThat(CONFIG_DIR).as("config folder of the repo").isDirectory();
        try (Stream<Path> list = Files.list(CONFIG_DIR)) {
            return list.filter(p -> p.getFileName().toString().endsWith(".toml")).sorted().toList();
        }
    }
}
