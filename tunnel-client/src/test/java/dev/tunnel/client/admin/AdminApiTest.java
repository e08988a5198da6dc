package dev.tunnel.client.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.config.VisitorConfig;
import dev.tunnel.web.WebServer;
import dev.tunnel.web.WebSettings;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The client's admin API over a real socket, as frpc's admin clients call it. */
@Timeout(20)
class AdminApiTest {
    @TempDir
    Path dir;

    private final AtomicInteger stops = new AtomicInteger();
    private final AtomicInteger reloads = new AtomicInteger();
    private final AdminControl control = new AdminControl() {
        @Override
        public List<ProxyState> status() {
            return List.of(new ProxyState("web", "tcp", "running", "", "127.0.0.1:8080", "", "vps.example:6000"),
                    new ProxyState("db", "tcp", "start error", "port 5432 is not allowed", "127.0.0.1:5432", "", ""));
        }

        @Override
        public ProxyConfig proxyConfig(String name) {
            if (!name.equals("web")) {
                return null;
            }
            ProxyConfig p = new ProxyConfig();
            p.name = "web";
            p.type = "http";
            p.localPort = 8080;
            p.customDomains = List.of("a.example.com");
            p.loadBalancer.group = "g";
            p.requestHeaders.set.put("x-from", "frp");
            return p;
        }

        @Override
        public VisitorConfig visitorConfig(String name) {
            if (!name.equals("ssh-visitor")) {
                return null;
            }
            VisitorConfig v = new VisitorConfig();
            v.name = "ssh-visitor";
            v.type = "stcp";
            v.serverName = "ssh";
            v.bindPort = 6000;
            return v;
        }

        @Override
        public void stop() {
            stops.incrementAndGet();
        }
    };
    private EventLoopGroup group;
    private WebServer web;
    private final HttpClient http = HttpClient.newHttpClient();

    private Path start(boolean withReload) throws Exception {
        Path file = Files.writeString(dir.resolve("client.toml"), "serverPort = 7000\n");
        AdminControl.Reload reload = withReload ? () -> "reloaded: " + reloads.incrementAndGet() : null;
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        web = WebServer.start(new WebSettings("127.0.0.1", 0, "admin", "pw", null, null),
                new AdminApi(control, reload, file, toml -> toml.contains("70000") ? "serverPort: 70000 (expected: 1-65535)" : null)
                        .routes(), group, NioServerSocketChannel.class, "admin API");
        return file;
    }

    @AfterEach
    void stop() {
        web.close();
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + web.port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:pw".getBytes(StandardCharsets.UTF_8)));
        for (int i = 0; i < headers.length; i += 2) {
            req.header(headers[i], headers[i + 1]);
        }
        return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void statusGroupsProxiesByTypeWithFrpcsFields() throws Exception {
        start(true);
        HttpResponse<String> res = send("GET", "/api/status", null);
        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.body()).isEqualTo("{\"tcp\":[{\"name\":\"db\",\"type\":\"tcp\",\"status\":\"start error\","
                + "\"err\":\"port 5432 is not allowed\",\"local_addr\":\"127.0.0.1:5432\",\"plugin\":\"\",\"remote_addr\":\"\"},"
                + "{\"name\":\"web\",\"type\":\"tcp\",\"status\":\"running\",\"err\":\"\",\"local_addr\":\"127.0.0.1:8080\","
                + "\"plugin\":\"\",\"remote_addr\":\"vps.example:6000\"}]}");
    }

    @Test
    void oneProxysAndOneVisitorsConfigAsFrpsDefinitions() throws Exception {
        start(false);
        HttpResponse<String> res = send("GET", "/api/proxy/web/config", null);
        assertThat(res.statusCode()).isEqualTo(200);
        JsonNode proxy = new ObjectMapper().readTree(res.body());
        assertThat(proxy.get("name").asText()).isEqualTo("web");
        assertThat(proxy.get("type").asText()).isEqualTo("http");
        JsonNode http = proxy.get("http");
        assertThat(http.get("name").asText()).isEqualTo("web");
        assertThat(http.get("localIP").asText()).isEqualTo("127.0.0.1");
        assertThat(http.get("localPort").asInt()).isEqualTo(8080);
        assertThat(http.get("customDomains").get(0).asText()).isEqualTo("a.example.com");
        assertThat(http.get("loadBalancer").get("group").asText()).isEqualTo("g");
        assertThat(http.get("requestHeaders").get("set").get("x-from").asText()).isEqualTo("frp");
        assertThat(http.get("transport").get("bandwidthLimitMode").asText()).isEqualTo("client");
        assertThat(http.has("plugin")).as("null: left out").isFalse();
        assertThat(http.has("locations")).as("empty: left out").isFalse();

        JsonNode visitor = new ObjectMapper().readTree(send("GET", "/api/visitor/ssh-visitor/config", null).body());
        assertThat(visitor.get("type").asText()).isEqualTo("stcp");
        assertThat(visitor.get("stcp").get("serverName").asText()).isEqualTo("ssh");
        assertThat(visitor.get("stcp").get("bindPort").asInt()).isEqualTo(6000);

        HttpResponse<String> missing = send("GET", "/api/proxy/nope/config", null);
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).isEqualTo("{\"Code\":404,\"Msg\":\"proxy \\\"nope\\\" not found\"}");
        assertThat(send("GET", "/api/visitor/web/config", null).statusCode()).isEqualTo(404);
    }

    @Test
    void putConfigReplacesTheFileOnlyWhenValid() throws Exception {
        Path file = start(true);
        HttpResponse<String> bad = send("PUT", "/api/config", "serverPort = 70000\n");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("serverPort: 70000 (expected: 1-65535)");
        assertThat(Files.readString(file)).isEqualTo("serverPort = 7000\n");
        assertThat(send("PUT", "/api/config", "serverPort = 7001\n").statusCode()).isEqualTo(200);
        assertThat(Files.readString(file)).isEqualTo("serverPort = 7001\n");
        assertThat(send("GET", "/api/config", null).body()).isEqualTo("serverPort = 7001\n");
        assertThat(send("PUT", "/api/config", "").statusCode()).isEqualTo(400);
    }

    @Test
    void crossSiteStopAndReloadAreRefused() throws Exception {
        start(true);
        assertThat(send("POST", "/api/stop", null, "Origin", "https://evil.example").statusCode()).isEqualTo(403);
        assertThat(send("GET", "/api/reload", null, "Sec-Fetch-Site", "cross-site").statusCode()).isEqualTo(403);
        assertThat(send("PUT", "/api/config", "serverPort = 7002\n", "Sec-Fetch-Site", "same-site").statusCode()).isEqualTo(403);
        assertThat(stops).hasValue(0);
        assertThat(reloads).hasValue(0);
        assertThat(send("POST", "/api/stop", null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/api/reload", null).body()).isEqualTo("reloaded: 1\n");
        assertThat(send("POST", "/api/reload", null).body()).isEqualTo("reloaded: 2\n");
        assertThat(stops).hasValue(1);
    }

    @Test
    void aCallerOnLoopbackIsNotTrustedWithoutTheCredentials() throws Exception {
        start(true);
        HttpClient anonymous = HttpClient.newHttpClient();
        for (String method : List.of("GET /api/config", "GET /api/status", "POST /api/reload", "GET /api/reload",
                "PUT /api/config", "POST /api/stop")) {
            String[] parts = method.split(" ");
            HttpResponse<String> res = anonymous.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + web.port() + parts[1]))
                    .method(parts[0], HttpRequest.BodyPublishers.ofString("serverPort = 7003\n")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(res.statusCode()).as(method).isEqualTo(401);
        }
        assertThat(reloads).hasValue(0);
        assertThat(stops).hasValue(0);
    }

    @Test
    void withoutReloadThereIsNoReloadRoute() throws Exception {
        start(false);
        assertThat(send("GET", "/api/reload", null).statusCode()).isEqualTo(404);
    }
}
