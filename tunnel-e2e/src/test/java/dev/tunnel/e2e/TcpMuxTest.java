package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.e2e.TunnelExtension.Tunnel;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code type = "tcpmux"}: an HTTP CONNECT on the server's {@code tcpmuxHTTPConnectPort}, routed
 * by host (and {@code routeByHTTPUser}), reaches the proxy's local app as raw TCP, in both
 * transport modes; unknown hosts, missing and wrong credentials are refused with the HTTP status
 * frp sends.
 */
@Timeout(60)
class TcpMuxTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();
    private final int port = FreePorts.one();

    private static ProxyConfig tcpmux(String name, int localPort, String domain) {
        ProxyConfig p = TunnelExtension.proxyConfig(name, localPort, 0);
        p.type = "tcpmux";
        p.multiplexer = "httpconnect";
        p.customDomains.add(domain);
        return p;
    }

    private Tunnel start(Mode mode, ProxyConfig... proxies) throws Exception {
        return tunnel.builder().mode(mode).server(c -> c.tcpmuxHTTPConnectPort = port)
                .client(c -> c.proxies.addAll(java.util.List.of(proxies))).start();
    }

    private static String auth(String user, String password) {
        return "Proxy-Authorization: Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8)) + "\r\n";
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aConnectForTheDomainReachesTheLocalApp(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        ProxyConfig proxy = tcpmux("mux", echo.port(), "tunnel1");
        proxy.httpUser = "u";
        proxy.httpPassword = "p";
        Tunnel t = start(mode, proxy);
        assertThat(t.error("mux")).isEmpty();
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(("CONNECT tunnel1:22 HTTP/1.1\r\nHost: tunnel1:22\r\n" + auth("u", "p") + "\r\nearly")
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(head(s.getInputStream())).isEqualTo("HTTP/1.1 200 OK\r\n\r\n");
            byte[] data = Payloads.random(400_000, 9);
            s.getOutputStream().write(data);
            s.shutdownOutput();
            byte[] expected = new byte[5 + data.length];
            System.arraycopy("early".getBytes(StandardCharsets.US_ASCII), 0, expected, 0, 5);
            System.arraycopy(data, 0, expected, 5, data.length);
            assertThat(Payloads.drain(s.getInputStream())).isEqualTo(Payloads.summary(expected));
        }
    }

    @Test
    void refusalsCarryFrpsStatusCodes() throws Exception {
        EchoServer echo = tunnel.echoServer();
        ProxyConfig open = tcpmux("open", echo.port(), "open.test");
        ProxyConfig locked = tcpmux("locked", echo.port(), "locked.test");
        locked.httpUser = "u";
        locked.httpPassword = "p";
        start(Mode.MUX, open, locked);
        assertThat(answer("CONNECT nobody.test:22 HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 404 ");
        assertThat(answer("CONNECT locked.test:22 HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 407 ");
        assertThat(answer("CONNECT locked.test:22 HTTP/1.1\r\n" + auth("u", "wrong") + "\r\n")).startsWith("HTTP/1.1 407 ");
        assertThat(answer("GET / HTTP/1.1\r\nHost: open.test\r\n\r\n")).startsWith("HTTP/1.1 405 ");
        assertThat(answer("NOT HTTP\r\n\r\n")).startsWith("HTTP/1.1 400 ");
        assertThat(answer("CONNECT open.test:22 HTTP/1.1\r\n\r\n")).startsWith("HTTP/1.1 200 OK");
    }

    @Test
    void routeByHttpUserPicksTheUsersProxy() throws Exception {
        EchoServer echo = tunnel.echoServer();
        LocalApp other = tunnel.localApp(socket -> {
            socket.getOutputStream().write("other".getBytes(StandardCharsets.US_ASCII));
            socket.close();
        });
        ProxyConfig anyone = tcpmux("anyone", echo.port(), "shared.test");
        ProxyConfig alice = tcpmux("alice", other.port(), "shared.test");
        alice.routeByHTTPUser = "alice";
        start(Mode.MUX, anyone, alice);
        assertThat(answer("CONNECT shared.test:1 HTTP/1.1\r\n" + auth("alice", "x") + "\r\n")).endsWith("other");
        assertThat(answer("CONNECT shared.test:1 HTTP/1.1\r\n\r\nping")).endsWith("ping");
    }

    /**
     * A visitor that sends its CONNECT, its bytes and its EOF at once: the EOF is read by the
     * router, often on another event loop than the session's, before the connection is handed to
     * the relay; it must still reach the app as a FIN (the echo app answers and closes on it).
     */
    @ParameterizedTest
    @EnumSource(Mode.class)
    void anEofSentWithTheConnectReachesTheApp(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        tunnel.builder().mode(mode).server(c -> {
            c.tcpmuxHTTPConnectPort = port;
            c.transport.eventLoopThreads = 2; // public connections land on both loops
        }).client(c -> c.proxies.add(tcpmux("echo", echo.port(), "echo.test"))).start();
        for (int i = 0; i < 6; i++) {
            assertThat(answer("CONNECT echo.test:1 HTTP/1.1\r\n\r\nbytes " + i)).endsWith("bytes " + i);
        }
    }

    /** Sends {@code request}, half-closes, reads to EOF. */
    private String answer(String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.shutdownOutput();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    private static String head(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }
}
