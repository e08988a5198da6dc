package dev.tunnel.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.protocol.udp.UdpDrops;
import dev.tunnel.server.config.PortRange;
import dev.tunnel.server.config.ServerConfig;
import dev.tunnel.server.vhost.VhostSettings;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.helpers.NOPLogger;

/** The REST API over a real socket, as frp's dashboard scripts call it. */
@Timeout(20)
class ServerApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ServerStats stats = new ServerStats(Clock.fixed(Instant.parse("2026-11-30T10:15:30Z"), ZoneId.of("UTC")));
    private final CountingTraffic sshTraffic = new CountingTraffic();
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
        sshTraffic.in.set(1000);
        sshTraffic.out.set(5000);
        sshTraffic.open.set(3);
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
        sshTraffic.in.set(123);
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
        sshTraffic.in.set(700);
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
    void anOfflineProxyKeepsItsTypeAndAddressForTheDashboard() throws Exception {
        stats.proxyClosed("ssh", sshTraffic);
        JsonNode ssh = json("/api/proxy/tcp/ssh");
        assertThat(ssh.get("conf").isNull()).as("frp's conf is null offline").isTrue();
        assertThat(ssh.get("type").asText()).isEqualTo("tcp");
        assertThat(ssh.get("remotePort").asInt()).isEqualTo(6001);
        assertThat(ssh.get("clientID").asText()).isEqualTo("run-a");
    }

    @Test
    void aVhostProxyListsItsDomainsUnderFrpsNamesAndAsHostNames() throws Exception {
        stats.proxyOpened("blog", "http", "", "run-a", 8080, new ProxyLabels(java.util.Map.of(),
                java.util.Map.of(), "", List.of("blog.example.org"), "blog", List.of("/", "/admin")), new Fixed(0, 0, 0));
        JsonNode blog = json("/api/proxy/http/blog");
        assertThat(blog.get("domains")).extracting(JsonNode::asText)
                .containsExactly("blog.example.org", "blog.example.com");
        assertThat(blog.get("conf").get("customDomains").get(0).asText()).isEqualTo("blog.example.org");
        assertThat(blog.get("conf").get("subdomain").asText()).isEqualTo("blog");
        assertThat(blog.get("conf").get("locations")).hasSize(2);
        assertThat(json("/api/proxy/tcp/ssh").has("domains")).isFalse();
    }

    @Test
    void theLastHourOfTrafficIsServedServerWideAndPerProxy() throws Exception {
        sshTraffic.in.set(5_000);
        stats.sampleAll();
        JsonNode all = json("/api/tunnel/history");
        assertThat(all.get("step").asInt()).isEqualTo(10);
        assertThat(all.get("in")).hasSize(360);
        assertThat(all.get("in").get(359).asLong()).as("5,000 B + web's 10 B in the last 10 s").isEqualTo(501);
        JsonNode ssh = json("/api/tunnel/history/ssh");
        assertThat(ssh.get("step").asInt()).isEqualTo(60);
        assertThat(ssh.get("in")).hasSize(60);
        assertThat(ssh.get("in").get(59).asLong()).isEqualTo(83);
        assertThat(get("/api/tunnel/history/none", true).statusCode()).isEqualTo(404);
        assertThat(get("/api/tunnel/history", false).statusCode()).isEqualTo(401);
    }

    @Test
    void labelsShowUnderFrpsNamesAndTheGroupKeyNever() throws Exception {
        stats.clientOnline("2", "ops", "run-b", "0.1.0", "pi", "192.0.2.8", "pi-1", java.util.Map.of("site", "home"),
                new Figures(0, 0, 0));
        stats.proxyOpened("ops.db", "tcp", "ops", "pi-1", 6003, new ProxyLabels(
                java.util.Map.of("owner", "ops"), java.util.Map.of("prefix/key2", "value2"), "dbs"), new Fixed(0, 0, 0));
        JsonNode client = json("/api/clients?clientId=pi-1").get(0);
        assertThat(client.get("clientID").asText()).isEqualTo("pi-1");
        assertThat(client.get("runID").asText()).isEqualTo("run-b");
        assertThat(client.get("metas").get("site").asText()).isEqualTo("home");
        assertThat(json("/api/clients?clientId=run-a").get(0).get("clientID").asText())
                .as("without a clientID the run id stands for it, as in frp").isEqualTo("run-a");
        assertThat(json("/api/clients?clientId=run-a").get(0).has("metas")).isFalse();
        JsonNode conf = json("/api/proxy/tcp/ops.db").get("conf");
        assertThat(conf.get("metadatas").get("owner").asText()).isEqualTo("ops");
        assertThat(conf.get("annotations").get("prefix/key2").asText()).isEqualTo("value2");
        assertThat(conf.get("loadBalancer").get("group").asText()).isEqualTo("dbs");
        assertThat(conf.get("loadBalancer").has("groupKey")).isFalse();
        assertThat(json("/api/proxy/tcp/ssh").get("conf").has("metadatas")).isFalse();
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
        sshTraffic.in.set(55);
        sshTraffic.open.set(2);
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
    void metricsHaveProcessJvmAndNettyFiguresAndSessionsByTheirStableId() throws Exception {
        stats.clientOnline("2", "ops", "run-b", "0.1.0", "pi", "192.0.2.8", "pi-1", java.util.Map.of(),
                new Figures(7_000_000L, 0, 0));
        stats.clientOnline("3", "ops", "run-c", "0.1.0", "pi", "192.0.2.9", "", java.util.Map.of(),
                new Figures(8_000_000L, 0, 0));
        String body = get("/metrics", true).body();
        assertThat(body).contains("tunnel_server_session_rtt_seconds{client=\"pi-1\",user=\"ops\"} 0.007",
                "tunnel_server_session_rtt_seconds{client=\"ops\",user=\"ops\"} 0.008",
                "process_resident_memory_bytes ", "process_open_fds ", "jvm_threads_current ",
                "jvm_gc_collection_seconds_count{gc=", "jvm_memory_used_bytes{area=\"heap\"}",
                "tunnel_netty_direct_memory_used_bytes ");
        assertThat(body).doesNotContain("run-b", "run-c");
    }

    @Test
    void aUdpProxysDroppedDatagramsShowInMetricsAndTheApiAcrossARestart() throws Exception {
        UdpDrops first = new UdpDrops(NOPLogger.NOP_LOGGER, "proxy [dns]");
        stats.proxyOpened("dns", "udp", "", "run-a", 6003, new Datagrams(first));
        first.drop(UdpDrops.Reason.NO_CREDIT, "198.51.100.1:5000");
        first.drop(UdpDrops.Reason.NO_CREDIT, "198.51.100.1:5000");
        first.drop(UdpDrops.Reason.OVERSIZE, "198.51.100.2:5000");
        stats.proxyClosed("dns", new Datagrams(first));
        UdpDrops second = new UdpDrops(NOPLogger.NOP_LOGGER, "proxy [dns]");
        stats.proxyOpened("dns", "udp", "", "run-a", 6003, new Datagrams(second));
        second.drop(UdpDrops.Reason.SOCKET_FULL, "198.51.100.1:5000");
        second.drop(UdpDrops.Reason.PROXY_FULL, "198.51.100.3:5000");

        assertThat(get("/metrics", true).body()).contains(
                "tunnel_server_udp_dropped_datagrams_total{name=\"dns\",reason=\"no_credit\",type=\"udp\"} 2.0",
                "tunnel_server_udp_dropped_datagrams_total{name=\"dns\",reason=\"oversize\",type=\"udp\"} 1.0",
                "tunnel_server_udp_dropped_datagrams_total{name=\"dns\",reason=\"proxy_full\",type=\"udp\"} 1.0",
                "tunnel_server_udp_dropped_datagrams_total{name=\"dns\",reason=\"socket_full\",type=\"udp\"} 1.0",
                "tunnel_server_udp_dropped_datagrams_total{name=\"dns\",reason=\"tunnel_full\",type=\"udp\"} 0.0")
                .doesNotContain("tunnel_server_udp_dropped_datagrams_total{name=\"ssh\"");
        assertThat(json("/api/proxy/udp/dns").get("droppedDatagrams").asLong()).isEqualTo(5);
        assertThat(json("/api/proxy/tcp/ssh").has("droppedDatagrams")).isFalse();
    }

    @Test
    void theVhostPortsCountersShowInMetrics() throws Exception {
        VhostSettings.Counters http = new VhostSettings.Counters();
        VhostSettings.Counters https = new VhostSettings.Counters();
        stats.vhostPort("http", http);
        stats.vhostPort("https", https);
        http.notFound.addAndGet(3);
        http.upstreamsOpened.incrementAndGet();
        http.upstreamsReused.addAndGet(9);
        http.retried.incrementAndGet();
        https.tlsUnrouted.addAndGet(2);

        assertThat(get("/metrics", true).body()).contains(
                "tunnel_server_vhost_errors_total{port=\"http\",reason=\"not_found\"} 3.0",
                "tunnel_server_vhost_errors_total{port=\"http\",reason=\"bad_request\"} 0.0",
                "tunnel_server_vhost_errors_total{port=\"https\",reason=\"tls_unrouted\"} 2.0",
                "tunnel_server_vhost_upstreams_total{how=\"opened\",port=\"http\"} 1.0",
                "tunnel_server_vhost_upstreams_total{how=\"reused\",port=\"http\"} 9.0",
                "tunnel_server_vhost_retried_requests_total{port=\"http\"} 1.0");
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

    private record Datagrams(UdpDrops datagramDrops) implements ServerStats.Traffic {
        @Override
        public long bytesIn() {
            return 0;
        }

        @Override
        public long bytesOut() {
            return 0;
        }

        @Override
        public long connections() {
            return 0;
        }
    }
}
