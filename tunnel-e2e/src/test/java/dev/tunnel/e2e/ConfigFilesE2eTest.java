package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server read from YAML and a client read from JSON, both taking the token from
 * {@code auth.tokenSource}, with the client's proxy in a YAML file it {@code includes}: they log
 * in to each other and carry bytes intact.
 */
@Timeout(60)
class ConfigFilesE2eTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @TempDir
    Path dir;

    @Test
    void yamlServerAndJsonClientWithIncludesAndTokenSourceCarryBytes() throws Exception {
        EchoServer echo = tunnel.echoServer();
        int bindPort = FreePorts.one();
        Files.writeString(dir.resolve("token"), "  from-a-file\n");
        Path frps = Files.writeString(dir.resolve("frps.yaml"), """
                version: "1"
                bindAddr: 127.0.0.1
                bindPort: %d
                auth:
                  tokenSource:
                    type: file
                    file:
                      path: %s
                transport:
                  drainTimeout: 1
                """.formatted(bindPort, dir.resolve("token")));
        Files.createDirectory(dir.resolve("confd"));
        Files.writeString(dir.resolve("confd/ssh.yaml"), """
                proxies:
                  - name: ssh
                    type: tcp
                    localPort: %d
                """.formatted(echo.port()));
        Path frpc = Files.writeString(dir.resolve("frpc.json"), """
                {
                  "serverAddr": "127.0.0.1",
                  "serverPort": %d,
                  "auth": {"tokenSource": {"type": "file", "file": {"path": "%s"}}},
                  "transport": {"wireProtocol": "v1", "drainTimeout": 1},
                  "includes": ["%s"]
                }
                """.formatted(bindPort, dir.resolve("token"), dir.resolve("confd/*.yaml")));

        TunnelServer server = tunnel.startServer(ServerConfig.load(frps, dir));
        ClientConfig clientConfig = ClientConfig.load(frpc, dir);
        assertThat(clientConfig.auth.token).isEqualTo("from-a-file");
        TunnelClient client = tunnel.startClient(clientConfig);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        int port = client.awaitRemotePort("ssh", Duration.ofSeconds(10));
        assertThat(server.port()).isEqualTo(bindPort);
        byte[] data = Payloads.random(64 * 1024, 7);
        assertThat(PublicClient.roundTrip(port, data)).isEqualTo(Payloads.summary(data));
    }
}
