package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.e2e.TunnelExtension.Mode;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Each public connection leaves one INFO line when it closes: proxy, visitor, bytes each way, duration. */
@Timeout(60)
class ConnectionLinesTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void tcpConnectionClosesWithItsLine(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode).proxy("echo", echo.port()).start();
        int visitorPort;
        try (Socket s = new Socket("127.0.0.1", t.port("echo"))) {
            visitorPort = s.getLocalPort();
            s.getOutputStream().write("hello".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            assertThat(in.readNBytes(5)).isEqualTo("hello".getBytes(StandardCharsets.US_ASCII));
        }
        String expected = "proxy [echo] connection from /127.0.0.1:" + visitorPort + " closed: 5 bytes in, 5 bytes out, ";
        await().atMost(Duration.ofSeconds(10))
                .until(() -> CapturedLogs.snapshot().stream().anyMatch(l -> l.contains(" INFO ") && l.contains(expected)));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void httpVhostConnectionClosesWithItsLine(Mode mode) throws Exception {
        int vhostPort = FreePorts.one();
        WebApp site = tunnel.closeAfterTest(new WebApp("site"));
        tunnel.builder().mode(mode).server(s -> s.vhostHTTPPort = vhostPort)
                .client(c -> c.proxies.add(VhostTest.http("site", site.port(), "site.example.test"))).start();
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get("site.example.test", "/").text()).startsWith("app=site");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> CapturedLogs.snapshot().stream()
                .anyMatch(l -> l.matches("(?s).* INFO .*proxy \\[site] connection from /127\\.0\\.0\\.1:\\d+ closed: [1-9]\\d* bytes in, [1-9]\\d* bytes out, .*")));
    }
}
