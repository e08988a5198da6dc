package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
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

/**
 * The server's dashboard API and /metrics with a real server and client, as a user's script sees
 * them: sessions and proxies coming and going, a udp proxy's traffic and dropped datagrams.
 */
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

    @Test
    void oneProxyByNameOneClientByKeyAndForgettingOfflineProxiesAsFrp() throws Exception {
        webPort = FreePorts.one();
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder()
                .server(c -> {
                    c.webServer.port = webPort;
                    c.webServer.user = "admin";
                    c.webServer.password = "s3cret";
                })
                .proxy("echo", echo.port()).start();
        int remotePort = t.port("echo");
        JsonNode proxy = json("/api/proxies/echo");
        assertThat(proxy.get("name").asText()).isEqualTo("echo");
        assertThat(proxy.get("status").asText()).isEqualTo("online");
        assertThat(proxy.get("conf").get("remotePort").asInt()).isEqualTo(remotePort);
        assertThat(get("/api/proxies/nobody", true).body()).isEqualTo("{\"Code\":404,\"Msg\":\"no proxy info found\"}");

        String key = json("/api/clients").get(0).get("key").asText();
        JsonNode client = json("/api/clients/" + key);
        assertThat(client.get("key").asText()).isEqualTo(key);
        assertThat(client.get("online").asBoolean()).isTrue();
        assertThat(client.get("clientIP").asText()).isEqualTo("127.0.0.1");
        HttpResponse<String> noClient = get("/api/clients/nobody", true);
        assertThat(noClient.statusCode()).isEqualTo(404);
        assertThat(noClient.body()).isEqualTo("{\"Code\":404,\"Msg\":\"client nobody not found\"}");

        assertThat(delete("/api/proxies").statusCode()).as("frp: status only support offline").isEqualTo(400);
        assertThat(delete("/api/proxies?status=offline").body()).isEqualTo("{\"Code\":200,\"Msg\":\"success\"}");
        assertThat(json("/api/proxies/echo").get("status").asText()).as("an online proxy stays").isEqualTo("online");
        t.client().close();
        await("proxy offline").atMost(Duration.ofSeconds(10)).pollInterval(50, TimeUnit.MILLISECONDS)
                .until(() -> json("/api/proxies/echo").get("status").asText().equals("offline"));
        assertThat(delete("/api/proxies?status=offline").statusCode()).isEqualTo(200);
        assertThat(get("/api/proxies/echo", true).statusCode()).as("forgotten").isEqualTo(404);
        assertThat(json("/api/proxy/tcp").get("proxies")).isEmpty();
    }

    private HttpResponse<String> delete(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + webPort + path)).DELETE()
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:s3cret"
                        .getBytes(StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aUdpProxysTrafficAndDroppedDatagramsShowInTheApiAndMetrics() throws Exception {
        webPort = FreePorts.one();
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        TunnelExtension.Tunnel t = tunnel.builder()
                .server(c -> {
                    c.webServer.port = webPort;
                    c.webServer.user = "admin";
                    c.webServer.password = "s3cret";
                    c.enablePrometheus = true;
                })
                .client(c -> {
                    ProxyConfig p = TunnelExtension.proxyConfig("dns", echo.port(), 0);
                    p.type = "udp";
                    c.proxies.add(p);
                }).start();
        InetSocketAddress server = new InetSocketAddress("127.0.0.1", t.port("dns"));
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(5000);
            byte[] big = new byte[1501]; // over udpPacketSize: dropped by the server
            s.send(new DatagramPacket(big, big.length, server));
            byte[] small = new byte[100];
            s.send(new DatagramPacket(small, small.length, server));
            s.receive(new DatagramPacket(new byte[2048], 2048));
        }
        await("counted").atMost(Duration.ofSeconds(10)).pollInterval(50, TimeUnit.MILLISECONDS)
                .until(() -> json("/api/proxy/udp/dns").get("todayTrafficOut").asLong() == 100);
        JsonNode proxy = json("/api/proxy/udp/dns");
        assertThat(proxy.get("todayTrafficIn").asLong()).isEqualTo(100);
        assertThat(proxy.get("droppedDatagrams").asLong()).isEqualTo(1);
        assertThat(get("/metrics", true).body()).contains(
                "tunnel_server_udp_dropped_datagrams_total{name=\"dns\",reason=\"oversize\",type=\"udp\"} 1.0",
                "frp_server_traffic_in{name=\"dns\",type=\"udp\"} 100.0");
    }
}
