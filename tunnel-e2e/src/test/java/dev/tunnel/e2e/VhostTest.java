package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.server.config.ServerConfig;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * frp's http proxy type end to end: real server, real clients, real local apps, raw and JDK HTTP
 * clients; what must hold in both transport modes runs in both (pool mode: a work connection per
 * proxy a visitor's connection uses in turn).
 */
@Timeout(60)
class VhostTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private final int vhostPort = FreePorts.one();

    static ProxyConfig http(String name, int localPort, String... domains) {
        ProxyConfig p = TunnelExtension.proxyConfig(name, localPort, 0);
        p.type = "http";
        p.customDomains = List.of(domains);
        return p;
    }

    private void vhostServer(ServerConfig config) {
        config.vhostHTTPPort = vhostPort;
        config.subDomainHost = "tunnel.test";
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void oneKeepAliveConnectionReachesAppsOfTwoClientsByHost(Mode mode) throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        WebApp b = tunnel.closeAfterTest(new WebApp("b"));
        TunnelExtension.Tunnel first = tunnel.builder().mode(mode).server(this::vhostServer)
                .client(c -> c.proxies.add(http("site-a", a.port(), "a.example.test"))).start();
        TunnelExtension.Tunnel second = tunnel.builder().mode(mode).existingServer(first.server())
                .client(c -> c.proxies.add(http("site-b", b.port(), "*.b.example.test"))).start();
        assertThat(first.error("site-a")).isEmpty();
        assertThat(second.error("site-b")).isEmpty();
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            for (int i = 0; i < 3; i++) {
                assertThat(conn.get("a.example.test", "/one").text()).startsWith("app=a path=/one host=a.example.test");
                assertThat(conn.get("www.b.example.test:" + vhostPort, "/two").text())
                        .startsWith("app=b path=/two host=www.b.example.test:" + vhostPort)
                        .contains(" xff=127.0.0.1 ").contains(" xfh=www.b.example.test:" + vhostPort)
                        .contains(" proto=http ").contains(" realip=127.0.0.1 ");
            }
            HttpClientConn.Response missing = conn.get("nobody.example.test", "/");
            assertThat(missing.status()).isEqualTo(404);
            assertThat(conn.get("a.example.test", "/after-404").text()).startsWith("app=a path=/after-404");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void subdomainsLocationsAuthAndRewritesAsInFrp(Mode mode) throws Exception {
        WebApp site = tunnel.closeAfterTest(new WebApp("site"));
        WebApp api = tunnel.closeAfterTest(new WebApp("api"));
        ProxyConfig siteProxy = http("site", site.port());
        siteProxy.subdomain = "blog";
        siteProxy.httpUser = "admin";
        siteProxy.httpPassword = "s3cret";
        siteProxy.hostHeaderRewrite = "internal.local";
        siteProxy.requestHeaders.set.put("x-from-where", "tunnel");
        siteProxy.responseHeaders.set.put("x-served-by", "home");
        ProxyConfig apiProxy = http("api", api.port());
        apiProxy.subdomain = "blog";
        apiProxy.locations = List.of("/api");
        tunnel.builder().mode(mode).server(this::vhostServer).client(c -> {
            c.proxies.add(siteProxy);
            c.proxies.add(apiProxy);
        }).start();
        String auth = "Authorization: Basic " + Base64.getEncoder().encodeToString("admin:s3cret".getBytes());
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            HttpClientConn.Response denied = conn.get("blog.tunnel.test", "/");
            assertThat(denied.status()).isEqualTo(401);
            assertThat(denied.headers().get("www-authenticate")).isEqualTo("Basic realm=\"Restricted\"");
            HttpClientConn.Response ok = conn.get("blog.tunnel.test", "/page", auth);
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.text()).startsWith("app=site path=/page host=internal.local").contains(" from=tunnel")
                    .contains(" xfh=blog.tunnel.test");
            assertThat(ok.headers().get("x-served-by")).isEqualTo("home");
            assertThat(conn.get("blog.tunnel.test", "/api/users").text()).startsWith("app=api path=/api/users");
        }
    }

    @Test
    void aTakenDomainIsRefusedNamingItsOwnerWhoKeepsIt() throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        TunnelExtension.Tunnel first = tunnel.builder().server(this::vhostServer)
                .client(c -> c.proxies.add(http("owner", a.port(), "shop.example.test"))).start();
        TunnelExtension.Tunnel second = tunnel.builder().existingServer(first.server())
                .client(c -> c.proxies.add(http("thief", a.port(), "shop.example.test"))).start();
        assertThat(second.error("thief")).contains("shop.example.test").contains("[owner]");
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get("shop.example.test", "/").status()).isEqualTo(200);
        }
    }

    @Test
    void aUserMayOnlyTakeItsAllowedDomains() throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        TunnelExtension.Tunnel t = tunnel.builder().server(config -> {
            vhostServer(config);
            ServerConfig.User alice = new ServerConfig.User();
            alice.name = "alice";
            alice.token = "alice-token";
            alice.allowDomains = List.of("*.alice.test");
            config.users.add(alice);
        }).client(c -> {
            c.user = "alice";
            c.auth.token = "alice-token";
            c.proxies.add(http("mine", a.port(), "www.alice.test"));
            c.proxies.add(http("theirs", a.port(), "www.bob.test"));
        }).start();
        assertThat(t.error("mine")).isEmpty();
        assertThat(t.error("theirs")).contains("www.bob.test").contains("not allowed").contains("alice");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void aStoppedLocalAppIs502(Mode mode) throws Exception {
        WebApp a = new WebApp("a");
        int port = a.port();
        a.close();
        tunnel.builder().mode(mode).server(this::vhostServer).client(c -> c.proxies.add(http("down", port, "down.example.test")))
                .start();
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get("down.example.test", "/").status()).isEqualTo(502);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void bodiesStreamIntactBothWays(Mode mode) throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        tunnel.builder().mode(mode).server(this::vhostServer).client(c -> c.proxies.add(http("big", a.port(), "localhost")))
                .start();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        int size = 16 * 1024 * 1024 + 7;
        HttpResponse<byte[]> down = client.send(HttpRequest.newBuilder(
                URI.create("http://localhost:" + vhostPort + "/bytes/" + size)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(down.statusCode()).isEqualTo(200);
        assertThat(WebApp.sha256(new ByteArrayInputStream(down.body())))
                .isEqualTo(WebApp.sha256(new ByteArrayInputStream(expected(size))));
        byte[] upload = expected(size);
        HttpResponse<String> up = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + vhostPort + "/up"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(upload)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(up.body()).isEqualTo(WebApp.sha256(new ByteArrayInputStream(upload)));
        HttpResponse<String> chunked = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + vhostPort + "/c"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(upload))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(chunked.body()).as("a chunked upload").isEqualTo(WebApp.sha256(new ByteArrayInputStream(upload)));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void expectContinueReachesTheAppAndTheBodyFollows(Mode mode) throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        tunnel.builder().mode(mode).server(this::vhostServer).client(c -> c.proxies.add(http("put", a.port(), "localhost")))
                .start();
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        byte[] body = expected(100_000);
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + vhostPort + "/e"))
                .expectContinue(true).PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.body()).isEqualTo(WebApp.sha256(new ByteArrayInputStream(body)));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void aWebSocketWorksThroughTheVhostPort(Mode mode) throws Exception {
        WebSocketApp app = tunnel.closeAfterTest(new WebSocketApp());
        tunnel.builder().mode(mode).server(this::vhostServer).client(c -> c.proxies.add(http("ws", app.port(), "localhost")))
                .start();
        CompletableFuture<String> echoed = new CompletableFuture<>();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create("ws://localhost:" + vhostPort + "/ws"), new WebSocket.Listener() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                        text.append(data);
                        if (last) {
                            echoed.complete(text.toString());
                        }
                        webSocket.request(1);
                        return null;
                    }
                }).get(10, TimeUnit.SECONDS);
        ws.sendText("hello through the vhost", true);
        assertThat(echoed.get(10, TimeUnit.SECONDS)).isEqualTo("echo: hello through the vhost");
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void manyKeepAliveConnectionsAlternatingHostsAllGetTheirOwnAnswers(Mode mode) throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        WebApp b = tunnel.closeAfterTest(new WebApp("b"));
        tunnel.builder().mode(mode).server(this::vhostServer).client(c -> {
            c.proxies.add(http("a", a.port(), "a.example.test"));
            c.proxies.add(http("b", b.port(), "b.example.test"));
        }).start();
        List<CompletableFuture<Void>> runs = new java.util.ArrayList<>();
        for (int c = 0; c < 8; c++) {
            runs.add(CompletableFuture.runAsync(() -> {
                try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
                    for (int i = 0; i < 25; i++) {
                        String host = (i % 3 == 0) ? "b.example.test" : "a.example.test";
                        String text = conn.get(host, "/r" + i).text();
                        assertThat(text).startsWith("app=" + host.charAt(0) + " path=/r" + i + " ");
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        CompletableFuture.allOf(runs.toArray(new CompletableFuture[0])).get(40, TimeUnit.SECONDS);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void newPublicConnectionsReuseTheConnectionToTheAppTheLastOneLeft(Mode mode) throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        tunnel.builder().mode(mode).server(this::vhostServer).client(c -> c.proxies.add(http("a", a.port(), "a.example.test")))
                .start();
        java.util.Set<String> appConnections = new java.util.HashSet<>();
        for (int i = 0; i < 5; i++) {
            try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
                String text = conn.get("a.example.test", "/n" + i, "Connection: close").text();
                assertThat(text).startsWith("app=a path=/n" + i + " ").contains(" connection=null");
                appConnections.add(text.replaceAll(".* conn=(\\d+) .*", "$1"));
                assertThat(conn.closedByServer()).isTrue();
            }
        }
        assertThat(appConnections).as("one connection to the app carried every visitor's request").hasSize(1);
        // a visitor that leaves in the middle of a response does not leave its connection to others
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            conn.send("GET /bytes/4000000 HTTP/1.1\r\nHost: a.example.test\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get("a.example.test", "/after").text()).startsWith("app=a path=/after ");
        }
    }

    @Test
    void theFirstResponseByteOfANewConnectionCostsOneLinkRoundTrip() throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        ServerConfig config = TunnelExtension.serverConfig();
        vhostServer(config);
        dev.tunnel.server.TunnelServer server = tunnel.startServer(config);
        dev.tunnel.bench.LinkEmulator link = tunnel.closeAfterTest(TunnelExtension.link(server.port(), 40));
        tunnel.builder().existingServer(server).client(c -> {
            c.serverPort = link.port();
            c.proxies.add(http("a", a.port(), "a.example.test"));
        }).start();
        byte[] request = "GET / HTTP/1.1\r\nHost: a.example.test\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII);
        long[] samples = new long[15];
        for (int i = -3; i < samples.length; i++) { // three warm-up requests
            long start = System.nanoTime();
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", vhostPort)) {
                s.setTcpNoDelay(true);
                s.getOutputStream().write(request);
                assertThat(s.getInputStream().read()).isEqualTo('H');
            }
            if (i >= 0) {
                samples[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            }
        }
        java.util.Arrays.sort(samples);
        long median = samples[samples.length / 2];
        System.out.printf("vhost first byte over 80 ms RTT: median %d ms%n", median);
        assertThat(median).as("one link round trip, not two").isGreaterThanOrEqualTo(80).isLessThan(120);
    }

    private static byte[] expected(int size) {
        byte[] out = new byte[size];
        byte[] p = WebApp.pattern(65536);
        for (int i = 0; i < size; i += p.length) {
            System.arraycopy(p, 0, out, i, Math.min(p.length, size - i));
        }
        return out;
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
