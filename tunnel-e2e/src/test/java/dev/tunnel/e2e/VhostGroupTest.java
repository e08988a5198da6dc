package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Tunnel;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code loadBalancer.group} on http, https and tcpmux proxies, as frp's {@code server/group}: the
 * proxies of two clients on one domain share the route, new requests and connections go to them
 * in turn, a proxy with the wrong groupKey is refused with the reason, and when one member leaves
 * the other serves everything.
 */
@Timeout(90)
class VhostGroupTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private final int port = FreePorts.one();

    @Test
    void twoHttpClientsInOneGroupBothServeAndTheOtherServesAloneWhenOneLeaves() throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        WebApp b = tunnel.closeAfterTest(new WebApp("b"));
        Tunnel first = member(c -> c.vhostHTTPPort = port, null, grouped("http", "web-a", a.port(), "key"));
        Tunnel second = member(null, first.server(), grouped("http", "web-b", b.port(), "key"));
        assertThat(first.error("web-a")).isEmpty();
        assertThat(second.error("web-b")).isEmpty();

        List<String> apps = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            apps.add(httpApp());
        }
        assertThat(apps).as("one new connection per request, in turn").containsOnly("a", "b")
                .filteredOn("a"::equals).hasSize(3);

        Tunnel intruder = member(null, first.server(), grouped("http", "web-x", a.port(), "wrong"));
        assertThat(intruder.error("web-x")).contains("domain [g.example.test] is served by group [web], whose"
                + " loadBalancer.groupKey differs from this proxy's");
        Tunnel alone = member(null, first.server(), http("solo", a.port()));
        assertThat(alone.error("solo")).contains("domain [g.example.test] is already used by group [web]");

        first.client().close();
        await("the other member serves every request").atMost(WAIT).untilAsserted(() ->
                assertThat(List.of(httpApp(), httpApp(), httpApp())).containsOnly("b"));
    }

    @Test
    void twoHttpsClientsInOneGroupShareTheServerNameInTurn() throws Exception {
        LocalApp a = tunnel.localApp(s -> greet(s, "a"));
        LocalApp b = tunnel.localApp(s -> greet(s, "b"));
        Tunnel first = member(c -> c.vhostHTTPSPort = port, null, grouped("https", "tls-a", a.port(), "key"));
        Tunnel second = member(null, first.server(), grouped("https", "tls-b", b.port(), "key"));
        assertThat(first.error("tls-a")).isEmpty();
        assertThat(second.error("tls-b")).isEmpty();
        assertThat(List.of(httpsApp(), httpsApp(), httpsApp(), httpsApp())).containsOnly("a", "b")
                .filteredOn("a"::equals).hasSize(2);

        second.client().close();
        await("the other member gets every connection").atMost(WAIT).untilAsserted(() ->
                assertThat(List.of(httpsApp(), httpsApp(), httpsApp())).containsOnly("a"));
    }

    @Test
    void twoTcpmuxClientsInOneGroupShareTheHostInTurn() throws Exception {
        LocalApp a = tunnel.localApp(s -> greet(s, "a"));
        LocalApp b = tunnel.localApp(s -> greet(s, "b"));
        Tunnel first = member(c -> c.tcpmuxHTTPConnectPort = port, null, grouped("tcpmux", "mux-a", a.port(), "key"));
        Tunnel second = member(null, first.server(), grouped("tcpmux", "mux-b", b.port(), "key"));
        assertThat(first.error("mux-a")).isEmpty();
        assertThat(second.error("mux-b")).isEmpty();
        Tunnel intruder = member(null, first.server(), grouped("tcpmux", "mux-x", a.port(), "wrong"));
        assertThat(intruder.error("mux-x")).contains("loadBalancer.groupKey differs");
        assertThat(List.of(connectApp(), connectApp(), connectApp(), connectApp())).containsOnly("a", "b")
                .filteredOn("a"::equals).hasSize(2);

        first.client().close();
        await("the other member gets every CONNECT").atMost(WAIT).untilAsserted(() ->
                assertThat(List.of(connectApp(), connectApp(), connectApp())).containsOnly("b"));
    }

    /** Starts a client with {@code proxy}, on a new server set by {@code server} or on {@code running}. */
    private Tunnel member(Consumer<ServerConfig> server, TunnelServer running, ProxyConfig proxy) throws Exception {
        TunnelExtension.TunnelBuilder builder = tunnel.builder().client(c -> c.proxies.add(proxy));
        return running == null ? builder.server(server).start() : builder.existingServer(running).start();
    }

    private static ProxyConfig http(String name, int localPort) {
        ProxyConfig p = TunnelExtension.proxyConfig(name, localPort, 0);
        p.type = "http";
        p.customDomains = List.of("g.example.test");
        return p;
    }

    private static ProxyConfig grouped(String type, String name, int localPort, String key) {
        ProxyConfig p = http(name, localPort);
        p.type = type;
        if ("tcpmux".equals(type)) {
            p.multiplexer = "httpconnect";
        }
        p.loadBalancer.group = "web";
        p.loadBalancer.groupKey = key;
        return p;
    }

    private static void greet(Socket s, String name) throws IOException {
        s.getOutputStream().write((name + "\n").getBytes(StandardCharsets.US_ASCII));
    }

    /** The app that answered a GET on a new connection ({@link WebApp} says "app=NAME ..."). */
    private String httpApp() throws IOException {
        try (HttpClientConn conn = new HttpClientConn(port)) {
            String text = conn.get("g.example.test", "/").text();
            assertThat(text).startsWith("app=");
            return text.substring(4, text.indexOf(' '));
        }
    }

    /** The app that greets a new TLS connection for g.example.test (only its ClientHello is sent). */
    private String httpsApp() throws Exception {
        SSLEngine engine = SSLContext.getDefault().createSSLEngine("g.example.test", 443);
        engine.setUseClientMode(true);
        SSLParameters params = engine.getSSLParameters();
        params.setServerNames(List.of(new SNIHostName("g.example.test")));
        engine.setSSLParameters(params);
        ByteBuffer hello = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
        engine.wrap(ByteBuffer.allocate(0), hello);
        hello.flip();
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(hello.array(), 0, hello.limit());
            return firstByte(s.getInputStream());
        }
    }

    /** The app that greets a CONNECT to g.example.test. */
    private String connectApp() throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write("CONNECT g.example.test:22 HTTP/1.1\r\nHost: g.example.test:22\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            StringBuilder head = new StringBuilder();
            while (!head.toString().endsWith("\r\n\r\n")) {
                int c = in.read();
                assertThat(c).as("the CONNECT answer, then the app's greeting").isNotNegative();
                head.append((char) c);
            }
            assertThat(head.toString()).startsWith("HTTP/1.1 200");
            return firstByte(in);
        }
    }

    private static String firstByte(InputStream in) throws IOException {
        return new String(in.readNBytes(1), StandardCharsets.US_ASCII);
    }
}
