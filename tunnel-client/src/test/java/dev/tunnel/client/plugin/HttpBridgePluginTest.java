package dev.tunnel.client.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.PluginConfig;
import dev.tunnel.protocol.transport.Transports;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The http2http, http2https, https2http and https2https plugins over real sockets. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HttpBridgePluginTest {
    private static EventLoopGroup group;
    private final java.util.List<AutoCloseable> open = new java.util.ArrayList<>();

    @BeforeAll
    static void startGroup() {
        group = Transports.newGroup(1, "http-bridge-test");
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private InetSocketAddress plugin(String type, String localAddr) throws Exception {
        PluginConfig config = new PluginConfig();
        config.type = type;
        config.localAddr = localAddr;
        config.hostHeaderRewrite = "app.internal";
        config.requestHeaders.set.put("x-from-where", "frp");
        LoopbackServer server = (LoopbackServer) LocalPlugins.start(config, group, 2000);
        open.add(server);
        return server.localAddress();
    }

    private Targets target(Targets t) {
        open.add(t);
        return t;
    }

    private static Socket tlsSocket(InetSocketAddress to) throws Exception {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, new TrustManager[] {new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        }}, new SecureRandom());
        return tls.getSocketFactory().createSocket(to.getAddress(), to.getPort());
    }

    private static String exchange(Socket s, String request) throws IOException {
        try (s) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static final String GET = "GET /p?q=1 HTTP/1.1\r\nHost: visitor.example\r\nx-from-where: visitor\r\n\r\n";

    @Test
    void http2httpRewritesHostAndSetsHeaders() throws Exception {
        Targets origin = target(Targets.origin());
        InetSocketAddress at = plugin("http2http", "127.0.0.1:" + origin.port());
        String response = exchange(new Socket(at.getAddress(), at.getPort()), GET);
        assertThat(response).startsWith("HTTP/1.1 200 OK").endsWith("\r\n\r\n" + Targets.ORIGIN_BODY);
        String head = origin.heads.poll(5, TimeUnit.SECONDS);
        assertThat(head).startsWith("GET /p?q=1 HTTP/1.1\r\n").containsIgnoringCase("host: app.internal\r\n")
                .containsIgnoringCase("x-from-where: frp\r\n").doesNotContain("visitor");
    }

    @Test
    void aMalformedChunkIs400AndTheLocalAppGetsNoLastChunk() throws Exception {
        try (ServerSocket app = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            java.util.concurrent.CompletableFuture<Void> bodyBegun = new java.util.concurrent.CompletableFuture<>();
            java.util.concurrent.CompletableFuture<String> got = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                StringBuilder text = new StringBuilder();
                try (Socket s = app.accept()) {
                    byte[] buf = new byte[4096];
                    int n;
                    while ((n = s.getInputStream().read(buf)) > 0) {
                        text.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                        if (text.toString().endsWith("5\r\nhello\r\n")) {
                            bodyBegun.complete(null);
                        }
                    }
                } catch (IOException reset) {
                    // ends it as well
                }
                return text.toString();
            });
            InetSocketAddress at = plugin("http2http", "127.0.0.1:" + app.getLocalPort());
            try (Socket visitor = new Socket(at.getAddress(), at.getPort())) {
                visitor.setSoTimeout(10_000);
                visitor.getOutputStream().write(("POST /up HTTP/1.1\r\nHost: visitor.example\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n").getBytes(StandardCharsets.ISO_8859_1));
                bodyBegun.get(10, TimeUnit.SECONDS);
                visitor.getOutputStream().write("0x10\r\n0123456789abcdef\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                assertThat(new String(visitor.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1))
                        .startsWith("HTTP/1.1 400 Bad Request");
            }
            assertThat(got.get(10, TimeUnit.SECONDS)).as("the app's connection ended without a last chunk")
                    .endsWith("5\r\nhello\r\n");
        }
    }

    @Test
    void https2httpTerminatesTlsAndSaysSo() throws Exception {
        Targets origin = target(Targets.origin());
        InetSocketAddress at = plugin("https2http", "127.0.0.1:" + origin.port());
        String response = exchange(tlsSocket(at), GET);
        assertThat(response).startsWith("HTTP/1.1 200 OK").endsWith(Targets.ORIGIN_BODY);
        String head = origin.heads.poll(5, TimeUnit.SECONDS);
        assertThat(head).containsIgnoringCase("x-forwarded-proto: https\r\n")
                .containsIgnoringCase("x-forwarded-host: visitor.example\r\n")
                .containsIgnoringCase("host: app.internal\r\n");
    }

    @Test
    void http2httpsAndHttps2httpsSpeakTlsToTheLocalApp() throws Exception {
        Targets origin = target(Targets.origin());
        PluginConfig tlsApp = new PluginConfig(); // the local app's TLS: a tls2raw plugin in front of the origin
        tlsApp.type = "tls2raw";
        tlsApp.localAddr = "127.0.0.1:" + origin.port();
        LoopbackServer app = (LoopbackServer) LocalPlugins.start(tlsApp, group);
        open.add(app);
        String appAddr = "127.0.0.1:" + app.localAddress().getPort();
        InetSocketAddress plain = plugin("http2https", appAddr);
        assertThat(exchange(new Socket(plain.getAddress(), plain.getPort()), GET)).endsWith(Targets.ORIGIN_BODY);
        InetSocketAddress tls = plugin("https2https", appAddr);
        assertThat(exchange(tlsSocket(tls), GET)).endsWith(Targets.ORIGIN_BODY);
        assertThat(origin.heads.poll(5, TimeUnit.SECONDS)).containsIgnoringCase("host: app.internal\r\n");
        assertThat(origin.heads.poll(5, TimeUnit.SECONDS)).containsIgnoringCase("x-forwarded-proto: https\r\n");
    }

    @Test
    void anUpgradeTurnsBothConnectionsIntoRawBytes() throws Exception {
        Targets app = target(Targets.upgrading());
        InetSocketAddress at = plugin("http2http", "127.0.0.1:" + app.port());
        try (Socket s = new Socket(at.getAddress(), at.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(Targets.readHead(s.getInputStream())).startsWith("HTTP/1.1 101 ");
            s.getOutputStream().write("raw \u0000\u0001 frames".getBytes(StandardCharsets.ISO_8859_1));
            s.shutdownOutput();
            assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1))
                    .isEqualTo("raw \u0000\u0001 frames");
        }
    }

    @Test
    void anUnreachableLocalAppGets502AndMalformedHeads400() throws Exception {
        int closed;
        try (ServerSocket free = new ServerSocket(0)) {
            closed = free.getLocalPort();
        }
        InetSocketAddress at = plugin("http2http", "127.0.0.1:" + closed);
        assertThat(exchange(new Socket(at.getAddress(), at.getPort()), GET)).startsWith("HTTP/1.1 502 ")
                .contains("cannot reach the local app");
        assertThat(exchange(new Socket(at.getAddress(), at.getPort()), "NOT HTTP\r\n\r\n")).startsWith("HTTP/1.1 400 ");
        assertThat(exchange(new Socket(at.getAddress(), at.getPort()),
                "GET / HTTP/1.1\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n")).startsWith("HTTP/1.1 431 ");
    }
}
