package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A proxy's {@code allowIPs}, {@code denyIPs} and {@code maxNewConnsPerIPPerMinute} with a real
 * server, client and local apps, for tcp ports and http routes in both transport modes: the
 * allowed visitor (127.0.0.1) gets through, a denied one is closed by the server without the
 * local app ever seeing a connection, and the connection after the per-minute limit is closed
 * the same way (the test makes them well within one minute; the window's end is
 * {@code VisitorRulesTest}'s, with a test clock). /metrics counts each refusal by proxy and reason.
 */
@Timeout(60)
class VisitorRulesE2eTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private final int webPort = FreePorts.one();
    private final int vhostPort = FreePorts.one();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void tcpVisitorsAreAllowedDeniedAndLimitedBeforeTheClientSeesThem(Mode mode) throws Exception {
        EchoServer open = tunnel.echoServer();
        EchoServer shut = tunnel.echoServer();
        EchoServer limited = tunnel.echoServer();
        ProxyConfig allowed = TunnelExtension.proxyConfig("allowed", open.port(), 0);
        allowed.allowIPs = List.of("127.0.0.0/8", "::1");
        ProxyConfig denied = TunnelExtension.proxyConfig("denied", shut.port(), 0);
        denied.denyIPs = List.of("10.0.0.0/8", "127.0.0.1");
        ProxyConfig rated = TunnelExtension.proxyConfig("rated", limited.port(), 0);
        rated.maxNewConnsPerIPPerMinute = 2;
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode).server(this::metricsServer).client(c -> {
            c.proxies.add(allowed);
            c.proxies.add(denied);
            c.proxies.add(rated);
        }).start();

        byte[] data = Payloads.random(8192, 3);
        assertThat(PublicClient.roundTrip(t.port("allowed"), data)).isEqualTo(Payloads.summary(data));
        assertThat(closedWithoutAnswer(t.port("denied"))).isTrue();
        assertThat(closedWithoutAnswer(t.port("denied"))).isTrue();
        assertThat(PublicClient.roundTrip(t.port("rated"), data)).isEqualTo(Payloads.summary(data));
        assertThat(PublicClient.roundTrip(t.port("rated"), data)).isEqualTo(Payloads.summary(data));
        assertThat(closedWithoutAnswer(t.port("rated"))).as("the 3rd new connection within a minute").isTrue();
        assertThat(PublicClient.roundTrip(t.port("allowed"), data)).as("other proxies are not limited")
                .isEqualTo(Payloads.summary(data));

        assertThat(shut.accepted()).as("the denied proxy's app never saw a connection").isZero();
        assertThat(limited.accepted()).as("the limited proxy's app saw the first two only").isEqualTo(2);
        assertThat(metrics()).contains(
                "tunnel_server_proxy_refused_visitors_total{proxy=\"denied\",reason=\"denied_ip\"} 2.0",
                "tunnel_server_proxy_refused_visitors_total{proxy=\"rated\",reason=\"rate_limited\"} 1.0")
                .doesNotContain("proxy=\"allowed\"");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void httpRulesApplyPerRouteOnTheSharedPort(Mode mode) throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        WebApp b = tunnel.closeAfterTest(new WebApp("b"));
        WebApp c = tunnel.closeAfterTest(new WebApp("c"));
        ProxyConfig allowed = VhostTest.http("site-a", a.port(), "a.example.test");
        allowed.allowIPs = List.of("127.0.0.1");
        ProxyConfig denied = VhostTest.http("site-b", b.port(), "b.example.test");
        denied.denyIPs = List.of("127.0.0.1");
        ProxyConfig rated = VhostTest.http("site-c", c.port(), "c.example.test");
        rated.maxNewConnsPerIPPerMinute = 1;
        tunnel.builder().mode(mode).server(s -> {
            metricsServer(s);
            s.vhostHTTPPort = vhostPort;
        }).client(cc -> {
            cc.proxies.add(allowed);
            cc.proxies.add(denied);
            cc.proxies.add(rated);
        }).start();

        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get("a.example.test", "/one").text()).startsWith("app=a path=/one");
            assertThat(conn.get("c.example.test", "/first").text()).as("one new connection: all its requests")
                    .startsWith("app=c path=/first");
            assertThat(conn.get("c.example.test", "/again").text()).startsWith("app=c path=/again");
        }
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get("b.example.test", "/").status()).as("denied route").isEqualTo(502);
        }
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get("a.example.test", "/two").text()).as("the allowed route on a new connection")
                    .startsWith("app=a path=/two");
            assertThat(conn.get("c.example.test", "/second").status()).as("2nd new connection to the limited route")
                    .isEqualTo(502);
        }
        assertThat(metrics()).contains(
                "tunnel_server_proxy_refused_visitors_total{proxy=\"site-b\",reason=\"denied_ip\"} 1.0",
                "tunnel_server_proxy_refused_visitors_total{proxy=\"site-c\",reason=\"rate_limited\"} 1.0")
                .doesNotContain("proxy=\"site-a\"");
    }

    private void metricsServer(dev.tunnel.server.config.ServerConfig config) {
        config.webServer.port = webPort;
        config.webServer.user = "admin";
        config.webServer.password = "s3cret";
        config.enablePrometheus = true;
    }

    private String metrics() throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + webPort + "/metrics"))
                .timeout(Duration.ofSeconds(10)).header("Authorization", "Basic "
                        + Base64.getEncoder().encodeToString("admin:s3cret".getBytes(StandardCharsets.UTF_8))).build();
        return http.send(req, HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Connects, sends a line and reads: true when the server closed the connection with no byte back. */
    private static boolean closedWithoutAnswer(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            try {
                s.getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
                InputStream in = s.getInputStream();
                return in.read() == -1;
            } catch (java.net.SocketException reset) {
                return true; // the server closed before or while we wrote
            }
        }
    }
}
