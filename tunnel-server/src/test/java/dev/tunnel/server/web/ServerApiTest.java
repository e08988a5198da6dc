package dev.tunnel.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.server.config.PortRange;
import dev.tunnel.server.config.ServerConfig;
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
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The REST API over a real socket, as frp's dashboard scripts call it. */
@Timeout(20)
class ServerApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ServerStats stats = new ServerStats(Clock.fixed(Instant.parse("2026-11-30T10:15:30Z"), ZoneId.of("UTC")));
    private final AtomicLong sshIn = new AtomicLong();
    private final AtomicLong sshOut = new AtomicLong();
    private final AtomicLong sshConns = new AtomicLong();
    private final ServerStats.Traffic sshTraffic = new ServerStats.Traffic() {
        @Override
        public long bytesIn() {
            return sshIn.get();
        }

        @Override
        public long bytesOut() {
            return sshOut.get();
        }

        @Override
        public long connections() {
            return sshConns.get();
        }
    };
    private EventLoopGroup group;
    private WebServer web;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        ServerConfig config = new ServerConfig();
        config.bindPort = 7000;
        config.vhostHTTPPort = 8080;
        config.subDomainHost = "example.com";
        config.enablePrometheus = true;
        config.allowPorts.add(new PortRange(6000, 6010, 0));
        config.allowPorts.add(new PortRange(0, 0, 7001));
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        web = WebServer.start(new WebSettings("127.0.0.1", 0, "admin", "pw", null, null),
                new ServerApi(config, stats, "1.2.3", List.of("tcp", "udp")).routes(), group, NioServerSocketChannel.class, "dashboard");
        stats.clientOnline("1", "", "run-a", "0.1.0", "nas", "192.0.2.7", new Figures(42_000_000L, 3, 1_500_000L));
        stats.proxyOpened("ssh", "tcp", "", "run-a", 6001, sshTraffic);
        stats.proxyOpened("web", "tcp", "", "run-a", 6002, new Fixed(10, 20, 0));
    }

    @AfterEach
    void stop() {
        web.close();
        group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private HttpResponse<String> get(String path, boolean withCredentials) throws Exception {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + web.port() + path));
        if (withCredentials) {
            req.header("Authorization", "Basic " + Base64.getEncoder().encodeToString("admin:pw".getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode json(String path) throws Exception {
        HttpResponse<String> res = get(path, true);
        assertThat(res.statusCode()).as(path).isEqualTo(200);
        assertThat(res.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        return JSON.readTree(res.body());
    }

    @Test
    void everyApiPathNeedsCredentialsButHealthz() throws Exception {
        for (String path : new String[] {"/api/serverinfo", "/api/proxy/tcp", "/api/proxy/tcp/ssh", "/api/traffic/ssh",
                "/api/clients", "/metrics", "/static/", "/nowhere"}) {
            assertThat(get(path, false).statusCode()).as(path).isEqualTo(401);
        }
        assertThat(get("/healthz", false).statusCode()).isEqualTo(200);
    }

    @Test
    void serverInfoHasFrpsFields() throws Exception {
        sshIn.set(1000);
        sshOut.set(5000);
        sshConns.set(3);
        JsonNode info = json("/api/serverinfo");
        assertThat(info.get("version").asText()).isEqualTo("1.2.3");
        assertThat(info.get("bindPort").asInt()).isEqualTo(7000);
        assertThat(info.get("vhostHTTPPort").asInt()).isEqualTo(8080);
        assertThat(info.get("vhostHTTPSPort").asInt()).isEqualTo(0);
        assertThat(info.get("subdomainHost").asText()).isEqualTo("example.com");
        assertThat(info.get("allowPortsStr").asText()).isEqualTo("6000-6010,7001");
        assertThat(info.get("clientCounts").asInt()).isEqualTo(1);
        assertThat(info.get("curConns").asInt()).isEqualTo(3);
        assertThat(info.get("totalTrafficIn").asLong()).isEqualTo(1010);
        assertThat(info.get("totalTrafficOut").asLong()).isEqualTo(5020);
        assertThat(info.get("proxyTypeCount").get("tcp").asInt()).isEqualTo(2);
        assertThat(info.has("maxPoolCount")).isTrue();
        assertThat(info.has("heartbeatTimeout")).isTrue();
    }

    @Test
    void proxiesByTypeAndByName() throws Exception {
        sshIn.set(123);
        JsonNode list = json("/api/proxy/tcp").get("proxies");
        assertThat(list).hasSize(2);
        JsonNode ssh = list.get(0);
        assertThat(ssh.get("name").asText()).isEqualTo("ssh");
        assertThat(ssh.get("status").asText()).isEqualTo("online");
        assertThat(ssh.get("conf").get("remotePort").asInt()).isEqualTo(6001);
        assertThat(ssh.get("todayTrafficIn").asLong()).isEqualTo(123);
        assertThat(ssh.get("lastStartTime").asText()).matches("\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");
        assertThat(json("/api/proxy/udp").get("proxies")).isEmpty();
        assertThat(json("/api/proxy/tcp/web").get("todayTrafficOut").asLong()).isEqualTo(20);
        assertThat(get("/api/proxy/tcp/none", true).statusCode()).isEqualTo(404);
    }

    @Test
    void aClosedProxyStaysListedOfflineWithItsTraffic() throws Exception {
        sshIn.set(700);
        stats.proxyClosed("ssh", sshTraffic);
        JsonNode ssh = json("/api/proxy/tcp/ssh");
        assertThat(ssh.get("status").asText()).isEqualTo("offline");
        assertThat(ssh.get("conf").isNull()).isTrue();
        assertThat(ssh.get("todayTrafficIn").asLong()).isEqualTo(700);
        assertThat(ssh.get("lastCloseTime").asText()).isNotEmpty();
        JsonNode traffic = json("/api/traffic/ssh");
        assertThat(traffic.get("trafficIn")).hasSize(7);
        assertThat(traffic.get("trafficIn").get(0).asLong()).isEqualTo(700);
        assertThat(get("/api/traffic/none", true).statusCode()).isEqualTo(404);
    }

    @Test
    void clientsListOnlineAndOffline() throws Exception {
        JsonNode c = json("/api/clients").get(0);
        assertThat(c.get("runID").asText()).isEqualTo("run-a");
        assertThat(c.get("hostname").asText()).isEqualTo("nas");
        assertThat(c.get("clientIP").asText()).isEqualTo("192.0.2.7");
        assertThat(c.get("online").asBoolean()).isTrue();
        assertThat(c.has("disconnectedAt")).isFalse();
        stats.clientOffline("run-a", "1");
        assertThat(json("/api/clients?status=online")).isEmpty();
        JsonNode offline = json("/api/clients?status=offline").get(0);
        assertThat(offline.get("online").asBoolean()).isFalse();
        assertThat(offline.get("disconnectedAt").asLong()).isPositive();
    }

    @Test
    void metricsUseFrpsNamesAndLabels() throws Exception {
        sshIn.set(55);
        sshConns.set(2);
        stats.loginFailed();
        HttpResponse<String> res = get("/metrics", true);
        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(res.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain; version=0.0.4");
        assertThat(res.body()).contains(
                "frp_server_client_counts 1.0",
                "frp_server_proxy_counts{type=\"tcp\"} 2.0",
                "frp_server_connection_counts{name=\"ssh\",type=\"tcp\"} 2.0",
                "frp_server_traffic_in{name=\"ssh\",type=\"tcp\"} 55.0",
                "frp_server_traffic_out{name=\"web\",type=\"tcp\"} 20.0",
                "tunnel_server_session_rtt_seconds{client=\"run-a\",user=\"\"} 0.042",
                "tunnel_server_session_window_stalls_total{client=\"run-a\",user=\"\"} 3.0",
                "tunnel_server_session_queue_delay_seconds{client=\"run-a\",user=\"\"} 0.0015",
                "tunnel_server_failed_logins_total 1.0");
    }

    @Test
    void dashboardIsServedFromTheJar() throws Exception {
        assertThat(get("/", true).statusCode()).isEqualTo(301);
        HttpResponse<String> page = get("/static/", true);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<script src=\"app.js\"").contains("data-types=\"tcp udp\"");
        assertThat(page.headers().firstValue("Content-Security-Policy").orElse("")).contains("default-src 'self'");
        assertThat(get("/static/app.js", true).body()).contains("/api/serverinfo");
    }

    private record Figures(long rttNanos, long windowStalls, long queueDelayNanos)
            implements ServerStats.SessionFigures {
    }

    private record Fixed(long bytesIn, long bytesOut, long connections) implements ServerStats.Traffic {
    }
}
