package dev.tunnel.client.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.PluginConfig;
import dev.tunnel.client.proxy.tcp.TcpDialer;
import dev.tunnel.protocol.transport.Transports;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The http_proxy plugin over real sockets on 127.0.0.1: what curl -x does, and what an attacker does. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HttpProxyPluginTest {
    private static final String AUTH = "Proxy-Authorization: Basic "
            + Base64.getEncoder().encodeToString("abc:pa55".getBytes(StandardCharsets.UTF_8)) + "\r\n";
    private static final long DEADLINE_MILLIS = 1500;

    private static EventLoopGroup group;
    private LocalPlugin plugin;
    private Targets echo;
    private Targets origin;

    @BeforeAll
    static void startGroup() {
        group = Transports.newGroup(1, "http-proxy-test");
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @BeforeEach
    void start() throws Exception {
        PluginConfig config = new PluginConfig();
        config.type = "http_proxy";
        config.allowDestinations = java.util.List.of("127.0.0.1"); // the test targets listen on loopback
        config.httpUser = "abc";
        config.httpPassword = "pa55";
        plugin = LocalPlugins.start(config, group, DEADLINE_MILLIS);
        echo = Targets.echo();
        origin = Targets.origin();
    }

    @AfterEach
    void stop() throws IOException {
        plugin.close();
        echo.close();
        origin.close();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        InetSocketAddress address = ((LoopbackServer) plugin).localAddress();
        s.connect(address, TcpDialer.CONNECT_TIMEOUT_MILLIS);
        s.setSoTimeout(10_000);
        return s;
    }

    private static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
    }

    /** The response head and whatever follows until the peer closes. */
    private static String readAll(Socket s) throws IOException {
        return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void connectTunnelsBytesBothWaysIntact() throws Exception {
        try (Socket s = connect()) {
            send(s, "CONNECT 127.0.0.1:" + echo.port() + " HTTP/1.1\r\nHost: 127.0.0.1:" + echo.port() + "\r\n" + AUTH + "\r\n");
            assertThat(Targets.readHead(s.getInputStream())).startsWith("HTTP/1.1 200 Connection established\r\n");
            Targets.assertEchoes(s, 3 * 1024 * 1024 + 17, 7);
        }
    }

    @Test
    void bytesSentRightBehindTheConnectHeadAreNotLost() throws Exception {
        try (Socket s = connect()) {
            send(s, "CONNECT 127.0.0.1:" + echo.port() + " HTTP/1.1\r\n" + AUTH + "\r\nearly bytes");
            assertThat(Targets.readHead(s.getInputStream())).startsWith("HTTP/1.1 200 ");
            s.shutdownOutput();
            assertThat(readAll(s)).isEqualTo("early bytes");
        }
    }

    @Test
    void absoluteUriGoesToTheOriginInOriginFormWithoutProxyHeaders() throws Exception {
        try (Socket s = connect()) {
            send(s, "GET http://127.0.0.1:" + origin.port() + "/a/b?x=1 HTTP/1.1\r\nHost: 127.0.0.1:" + origin.port()
                    + "\r\n" + AUTH + "Proxy-Connection: keep-alive\r\nX-Mine: kept\r\n\r\n");
            String response = readAll(s);
            assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").endsWith("\r\n\r\n" + Targets.ORIGIN_BODY);
        }
        String head = origin.heads.poll(5, TimeUnit.SECONDS);
        assertThat(head).startsWith("GET /a/b?x=1 HTTP/1.1\r\n").contains("X-Mine: kept\r\n")
                .containsIgnoringCase("connection: close\r\n")
                .doesNotContainIgnoringCase("proxy-authorization").doesNotContainIgnoringCase("proxy-connection");
    }

    @Test
    void noCredentialsGet407WithAChallenge() throws Exception {
        try (Socket s = connect()) {
            send(s, "CONNECT 127.0.0.1:" + echo.port() + " HTTP/1.1\r\n\r\n");
            String response = readAll(s);
            assertThat(response).startsWith("HTTP/1.1 407 ").contains("proxy-authenticate: Basic");
        }
    }

    @Test
    void wrongCredentialsGet407AfterADelay() throws Exception {
        String wrong = "Proxy-Authorization: Basic " + Base64.getEncoder().encodeToString("abc:pa56".getBytes(StandardCharsets.UTF_8));
        try (Socket s = connect()) {
            long start = System.nanoTime();
            send(s, "GET http://127.0.0.1:" + origin.port() + "/ HTTP/1.1\r\n" + wrong + "\r\n\r\n");
            String response = readAll(s);
            assertThat(response).startsWith("HTTP/1.1 407 ");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .isGreaterThanOrEqualTo(HttpProxyHandler.WRONG_CREDENTIALS_DELAY_MILLIS);
        }
        assertThat(origin.heads).isEmpty();
    }

    @Test
    void malformedOversizedAndNonProxyRequestsAreRefused() throws Exception {
        assertThat(answer("NOT HTTP AT ALL\r\n\r\n")).startsWith("HTTP/1.1 400 ");
        assertThat(answer("GET /local/path HTTP/1.1\r\nHost: x\r\n" + AUTH + "\r\n")).startsWith("HTTP/1.1 400 ")
                .contains("absolute http:// URI");
        assertThat(answer("CONNECT 127.0.0.1 HTTP/1.1\r\n" + AUTH + "\r\n")).startsWith("HTTP/1.1 400 ")
                .contains("host:port");
        assertThat(answer("GET https://127.0.0.1:1/ HTTP/1.1\r\n" + AUTH + "\r\n")).startsWith("HTTP/1.1 400 ");
        assertThat(answer("GET http://127.0.0.1:" + origin.port() + "/ HTTP/1.1\r\nX-Big: " + "a".repeat(20_000)
                + "\r\n\r\n")).startsWith("HTTP/1.1 431 ");
        assertThat(answer("GET http://127.0.0.1/" + "a".repeat(10_000) + " HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 414 ");
        assertThat(origin.heads).isEmpty();
    }

    @Test
    void unreachableTargetGets502NamingIt() throws Exception {
        int closed;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            closed = free.getLocalPort();
        }
        assertThat(answer("CONNECT 127.0.0.1:" + closed + " HTTP/1.1\r\n" + AUTH + "\r\n"))
                .startsWith("HTTP/1.1 502 ").contains("cannot reach 127.0.0.1:" + closed);
    }

    @Test
    void aClientThatTricklesItsHeadIsClosedAtTheDeadline() throws Exception {
        try (Socket s = connect()) {
            send(s, "CONNECT 127.0.0.1:" + echo.port() + " HTTP/1.1\r\n");
            long start = System.nanoTime();
            InputStream in = s.getInputStream();
            int read;
            try {
                read = in.read();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("connection still open 10 s after the head deadline", e);
            }
            assertThat(read).isEqualTo(-1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThan(DEADLINE_MILLIS / 2);
        }
    }

    @Test
    void anOpenProxyNeedsNoCredentials() throws Exception {
        plugin.close();
        PluginConfig open = new PluginConfig();
        open.type = "http_proxy";
        open.allowDestinations = java.util.List.of("127.0.0.1");
        plugin = LocalPlugins.start(open, group, DEADLINE_MILLIS);
        assertThat(answer("GET http://127.0.0.1:" + origin.port() + "/ HTTP/1.1\r\n\r\n"))
                .startsWith("HTTP/1.1 200 OK").endsWith(Targets.ORIGIN_BODY);
    }

    private String answer(String request) throws IOException {
        try (Socket s = connect()) {
            send(s, request);
            return readAll(s);
        }
    }
}
