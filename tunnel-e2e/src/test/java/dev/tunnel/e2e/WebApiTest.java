package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The server's dashboard API and /metrics with a real server and client, as a user's script sees them. */
@Timeout(60)
class WebApiTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private final HttpClient http = HttpClient.newHttpClient();
    private int webPort;

    private HttpResponse<String> get(String path, boolean credentials) throws Exception {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + webPort + path))
                .timeout(Duration.ofSeconds(10));
        if (credentials) {
            req.header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:s3cret".getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode json(String path) throws Exception {
        HttpResponse<String> res = get(path, true);
        assertThat(res.statusCode()).as(path).isEqualTo(200);
        return new ObjectMapper().readTree(res.body());
    }

    @Test
    void clientsAndProxiesComeAndGoAsTheClientDoes() throws Exception {
        webPort = FreePorts.one();
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder().tls(true)
                .server(c -> {
                    c.webServer.port = webPort;
                    c.webServer.user = "admin";
                    c.webServer.password = "s3cret";
                    c.enablePrometheus = true;
                })
                .proxy("echo", echo.port()).start();
        int remotePort = t.port("echo");

        assertThat(get("/api/serverinfo", false).statusCode()).isEqualTo(401);
        assertThat(get("/healthz", false).statusCode()).isEqualTo(200);

        JsonNode info = json("/api/serverinfo");
        assertThat(info.get("clientCounts").asInt()).isEqualTo(1);
        assertThat(info.get("proxyTypeCount").get("tcp").asInt()).isEqualTo(1);
        JsonNode client = json("/api/clients").get(0);
        assertThat(client.get("online").asBoolean()).isTrue();
        assertThat(client.get("clientIP").asText()).isEqualTo("127.0.0.1");
        JsonNode proxy = json("/api/proxy/tcp/echo");
        assertThat(proxy.get("status").asText()).isEqualTo("online");
        assertThat(proxy.get("conf").get("remotePort").asInt()).isEqualTo(remotePort);

        ClientConfig wrong = TunnelExtension.clientConfig(t.server(), true);
        wrong.auth.token = "not-the-token";
        TunnelClient refused = tunnel.startClient(wrong);
        assertThat(refused.firstLogin()).failsWithin(Duration.ofSeconds(20)).withThrowableOfType(ExecutionException.class);
        String metrics = get("/metrics", true).body();
        assertThat(metrics).contains("frp_server_client_counts 1.0", "frp_server_proxy_counts{type=\"tcp\"} 1.0",
                "tunnel_server_failed_logins_total 1.0");

        t.client().close();
        await("proxy offline").atMost(Duration.ofSeconds(10)).pollInterval(50, TimeUnit.MILLISECONDS)
                .until(() -> json("/api/proxy/tcp/echo").get("status").asText().equals("offline"));
        assertThat(json("/api/clients?status=online")).isEmpty();
        assertThat(json("/api/serverinfo").get("clientCounts").asInt()).isZero();
    }
}
