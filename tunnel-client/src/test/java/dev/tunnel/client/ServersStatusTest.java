package dev.tunnel.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.client.config.ClientConfig;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's admin API lists each server's session ({@code GET /api/servers}): its address,
 * state, since when and the last error, so one can see which servers a client is on. Here
 * neither server listens: both sessions keep retrying and say why.
 */
@Timeout(30)
class ServersStatusTest {
    @TempDir
    Path dir;

    @Test
    void apiServersListsEachServerWithItsStateAndLastError() throws Exception {
        int webPort;
        int portA;
        int portB;
        try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0); ServerSocket c = new ServerSocket(0)) {
            webPort = a.getLocalPort();
            portA = b.getLocalPort();
            portB = c.getLocalPort(); // closed: the sessions keep retrying
        }
        ClientConfig config = new ClientConfig();
        config.serverAddrs = List.of("127.0.0.1:" + portA, "127.0.0.1:" + portB);
        config.loginFailExit = false;
        config.transport.tls.enable = false;
        config.webServer.port = webPort;
        Path file = Files.writeString(dir.resolve("client.toml"), "");
        Instant started = Instant.now().minusSeconds(1);

        try (TunnelClient client = TunnelClient.start(config);
             ClientAdmin admin = new ClientAdmin(client, new ConfigReloader(client, config, file), config, file, () -> { })) {
            await("both sessions failed once").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                JsonNode servers = get(webPort, "/api/servers");
                assertThat(servers).hasSize(2);
                for (int i = 0; i < 2; i++) {
                    JsonNode s = servers.get(i);
                    int port = i == 0 ? portA : portB;
                    assertThat(s.get("addr").asText()).isEqualTo("127.0.0.1:" + port);
                    assertThat(s.get("state").asText()).isIn("retry_wait", "connecting");
                    assertThat(s.get("err").asText()).contains("cannot connect to server 127.0.0.1:" + port);
                    assertThat(Instant.parse(s.get("since").asText())).isAfter(started);
                }
            });
            assertThat(admin.servers()).hasSize(2);
        }
    }

    private static JsonNode get(int port, String path) throws Exception {
        HttpResponse<String> res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).isEqualTo(200);
        return new ObjectMapper().readTree(res.body());
    }
}
