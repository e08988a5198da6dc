package dev.tunnel.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.client.admin.AdminControl;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A proxy's health shows in the client's admin API, /api/status, as frp shows it: "check failed"
 * with the last check's error while the local app is down, and no longer once it is back. The
 * checks run whether or not the client is logged in (here no server answers at all).
 */
@Timeout(60)
class HealthStatusTest {
    @TempDir
    Path dir;

    @Test
    void apiStatusSaysCheckFailedWhileTheLocalAppIsDown() throws Exception {
        int appPort;
        int webPort;
        int serverPort;
        try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0); ServerSocket c = new ServerSocket(0)) {
            appPort = a.getLocalPort();
            webPort = b.getLocalPort();
            serverPort = c.getLocalPort(); // closed: the client keeps retrying its login
        }
        ClientConfig config = new ClientConfig();
        config.serverPort = serverPort;
        config.loginFailExit = false;
        config.transport.tls.enable = false;
        config.webServer.port = webPort;
        ProxyConfig proxy = new ProxyConfig();
        proxy.name = "web";
        proxy.localPort = appPort;
        proxy.healthCheck.type = "tcp";
        proxy.healthCheck.intervalSeconds = 1;
        proxy.healthCheck.timeoutSeconds = 2;
        config.proxies.add(proxy);
        Path file = Files.writeString(dir.resolve("client.toml"), "");

        try (TunnelClient client = TunnelClient.start(config);
             ClientAdmin admin = new ClientAdmin(client, new ConfigReloader(client, config, file), config, file, () -> { })) {
            assertThat(admin.status()).extracting(AdminControl.ProxyState::name).containsExactly("web");
            await("check failed").atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                JsonNode web = status(webPort).get("tcp").get(0);
                assertThat(web.get("status").asText()).isEqualTo("check failed");
                assertThat(web.get("err").asText()).contains("cannot connect to 127.0.0.1:" + appPort);
            });
            assertThat(client.healthFailure("web")).get(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                    .contains("cannot connect");

            try (ServerSocket app = listen(appPort)) {
                assertThat(app.getLocalPort()).isEqualTo(appPort);
                await("passing again").atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                    JsonNode web = status(webPort).get("tcp").get(0);
                    assertThat(web.get("status").asText()).as("registered; the server has not answered")
                            .isEqualTo("wait start");
                    assertThat(web.get("err").asText()).isEmpty();
                });
                assertThat(client.healthFailure("web")).isEmpty();
            }
        }
    }

    private static JsonNode status(int port) throws IOException, InterruptedException {
        HttpResponse<String> res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/api/status")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).isEqualTo(200);
        return new ObjectMapper().readTree(res.body());
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        return s;
    }
}
