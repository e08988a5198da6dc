package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.server.ProxyStatus;
import dev.tunnel.server.TunnelServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The vhost HTTP port against apps and visitors that do not keep to HTTP/1.1's framing: an app
 * answering more than it was asked, a visitor whose body is malformed, stops, or is cut short
 * by its FIN. Nothing of one exchange may spill into another, and nothing may stay open forever.
 */
@Timeout(60)
class VhostHostileTrafficTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK";
    private static final String FORGED = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged";

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private final int vhostPort = FreePorts.one();
    /** What a local app that only reads got, once its connection ended. */
    private final CompletableFuture<String> appGot = new CompletableFuture<>();
    /** Completed once that app has read what the test waits for ({@link #readingApp}). */
    private final CompletableFuture<Void> appRead = new CompletableFuture<>();

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void extraBytesFromOneAppNeverAnswerARequestToAnotherHost(Mode mode) throws Exception {
        LocalApp twice = tunnel.localApp(socket -> {
            readHead(socket.getInputStream());
            socket.getOutputStream().write((OK + FORGED).getBytes(StandardCharsets.ISO_8859_1)); // one write
            socket.getInputStream().transferTo(OutputStream.nullOutputStream()); // until it is reset
        });
        WebApp b = tunnel.closeAfterTest(new WebApp("b"));
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode).server(c -> c.vhostHTTPPort = vhostPort).client(c -> {
            c.proxies.add(VhostTest.http("twice", twice.port(), "a.example.test"));
            c.proxies.add(VhostTest.http("b", b.port(), "b.example.test"));
        }).start();
        assertThat(t.error("twice")).isEmpty();
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            conn.send(("GET /1 HTTP/1.1\r\nHost: a.example.test\r\n\r\n"
                    + "GET /2 HTTP/1.1\r\nHost: b.example.test\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            assertThat(conn.read().text()).isEqualTo("OK");
            assertThat(conn.read().text()).as("b's own answer").startsWith("app=b path=/2 ");
        }
        // once when the extra bytes came with the answer or on the connection parked after it; they may
        // also reach it only after it was given up, and are dropped without a word then
        assertThat(logLines("sent bytes beyond the response it was asked for")).isLessThanOrEqualTo(1);
    }

    @Test
    void aMalformedChunkedBodyIs400AndTheAppGetsNoLastChunk() throws Exception {
        LocalApp app = readingApp("5\r\nhello\r\n");
        tunnel.builder().server(c -> c.vhostHTTPPort = vhostPort)
                .client(c -> c.proxies.add(VhostTest.http("up", app.port(), "up.example.test"))).start();
        String reply = exchange("POST /up HTTP/1.1\r\nHost: up.example.test\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n", "0x10\r\n0123456789abcdef\r\n0\r\n\r\n", false);
        assertThat(reply).startsWith("HTTP/1.1 400 Bad Request\r\n");
        assertThat(appGot.get(10, TimeUnit.SECONDS)).as("the app's connection ended without a last chunk")
                .startsWith("POST /up HTTP/1.1\r\n").endsWith("5\r\nhello\r\n");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void aVisitorThatClosesItsSideMidBodyIsEndedAndNotCountedAnyMore(Mode mode) throws Exception {
        LocalApp app = readingApp("0123456789");
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode).server(c -> c.vhostHTTPPort = vhostPort)
                .client(c -> c.proxies.add(VhostTest.http("up", app.port(), "up.example.test"))).start();
        String reply = exchange("POST /up HTTP/1.1\r\nHost: up.example.test\r\nContent-Length: 100000\r\n\r\n"
                + "0123456789", "", true);
        assertThat(reply).startsWith("HTTP/1.1 400 Bad Request\r\n");
        assertThat(appGot.get(10, TimeUnit.SECONDS)).endsWith("\r\n\r\n0123456789");
        awaitNoConnections(t.server(), "up");
    }

    @Test
    void aBodyThatStopsArrivingIsEndedAfterVhostHttpBodyTimeout() throws Exception {
        LocalApp app = readingApp("0123456789");
        TunnelExtension.Tunnel t = tunnel.builder().server(c -> {
            c.vhostHTTPPort = vhostPort;
            c.vhostHTTPBodyTimeout = 1;
        }).client(c -> c.proxies.add(VhostTest.http("up", app.port(), "up.example.test"))).start();
        String reply = exchange("POST /up HTTP/1.1\r\nHost: up.example.test\r\nContent-Length: 100\r\n\r\n"
                + "0123456789", "", false);
        assertThat(reply).startsWith("HTTP/1.1 408 Request Timeout\r\n");
        assertThat(appGot.get(10, TimeUnit.SECONDS)).endsWith("\r\n\r\n0123456789");
        awaitNoConnections(t.server(), "up");
    }

    /**
     * A local app that reads its connection to the end, then completes {@link #appGot} with what
     * came; {@link #appRead} once what came ends with {@code awaited}. It never answers.
     */
    private LocalApp readingApp(String awaited) throws Exception {
        return tunnel.localApp(socket -> {
            StringBuilder got = new StringBuilder();
            byte[] buf = new byte[8192];
            try {
                int n;
                while ((n = socket.getInputStream().read(buf)) > 0) {
                    got.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                    if (got.toString().endsWith(awaited)) {
                        appRead.complete(null);
                    }
                }
            } catch (IOException reset) {
                // a reset ends it as well
            }
            appGot.complete(got.toString());
        });
    }

    /**
     * Sends {@code first} on a new connection, then, once the app has read what it awaits,
     * {@code then} (and a FIN if {@code halfClose}); reads to the server's close.
     */
    private String exchange(String first, String then, boolean halfClose) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", vhostPort), 10_000);
            s.setSoTimeout(20_000);
            s.getOutputStream().write(first.getBytes(StandardCharsets.ISO_8859_1));
            appRead.get(10, TimeUnit.SECONDS);
            s.getOutputStream().write(then.getBytes(StandardCharsets.ISO_8859_1));
            if (halfClose) {
                s.shutdownOutput();
            }
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static void readHead(InputStream in) throws IOException {
        int matched = 0;
        while (matched < 4) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed inside a request head");
            }
            matched = c == "\r\n\r\n".charAt(matched) ? matched + 1 : c == '\r' ? 1 : 0;
        }
    }

    private static void awaitNoConnections(TunnelServer server, String proxy) {
        await("curConns of " + proxy + " back to 0").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            ProxyStatus status = server.proxies().stream().filter(p -> p.name().equals(proxy)).findFirst().orElseThrow();
            assertThat(status.traffic().open()).isZero();
        });
    }

    private static long logLines(String text) {
        return CapturedLogs.snapshot().stream().filter(line -> line.contains(text)).count();
    }
}
