package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.client.ServerStatus;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ServerEntry;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One client on two servers, as operations see it: the same client in each server's API, each
 * server with its own certificate pinned, and a server without the client's session refusing
 * at once what it would have routed to it.
 */
@Timeout(60)
class MultiServerOpsTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void eachServersApiShowsTheSameClient() throws Exception {
        int webA = FreePorts.one();
        int webB = FreePorts.one();
        TunnelServer a = tunnel.startServer(withWeb(webA));
        TunnelServer b = tunnel.startServer(withWeb(webB));
        EchoServer echo = tunnel.echoServer();
        ClientConfig cc = client(a, b);
        cc.clientID = "nas-1";
        cc.proxies.add(TunnelExtension.proxyConfig("ssh", echo.port(), 0));
        TunnelClient client = tunnel.startClient(cc);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> a.sessionCount() == 1 && b.sessionCount() == 1);

        JsonNode onA = json(webA, "/api/clients?clientId=nas-1").get(0);
        JsonNode onB = json(webB, "/api/clients?clientId=nas-1").get(0);
        for (String field : List.of("key", "clientID", "runID", "user", "hostname")) {
            assertThat(onB.get(field).asText()).as(field).isEqualTo(onA.get(field).asText());
        }
        assertThat(onA.get("online").asBoolean()).isTrue();
        assertThat(onB.get("online").asBoolean()).isTrue();
    }

    @Test
    void eachServerIsCheckedAgainstItsOwnPinnedCertificate() throws Exception {
        TestPki pki = new TestPki(dir);
        TestPki.Files certA = pki.server("a", List.of("localhost", "127.0.0.1"));
        TestPki.Files certB = pki.server("b", List.of("localhost", "127.0.0.1"));
        TunnelServer a = tunnel.startServer(withTls(certA));
        TunnelServer b = tunnel.startServer(withTls(certB));
        TunnelServer c = tunnel.startServer(withTls(certB));

        ClientConfig cc = new ClientConfig();
        cc.auth.token = TunnelExtension.TOKEN;
        cc.loginFailExit = false;
        cc.servers = List.of(
                server(a, "sha256:" + certA.key().sha256Fingerprint()),
                server(b, "sha256:" + certB.key().sha256Fingerprint()),
                server(c, "sha256:" + certA.key().sha256Fingerprint())); // the wrong pin for c
        TunnelClient client = tunnel.startClient(cc);
        client.firstLogin().get(10, TimeUnit.SECONDS);

        await("a and b online, c refused").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            List<ServerStatus> s = client.servers();
            assertThat(s.get(0).state()).isEqualTo(ServerStatus.State.ONLINE);
            assertThat(s.get(1).state()).isEqualTo(ServerStatus.State.ONLINE);
            assertThat(s.get(2).state()).isNotEqualTo(ServerStatus.State.ONLINE);
            assertThat(s.get(2).lastError()).contains("does not match transport.tls.serverFingerprint");
        });
        assertThat(c.sessionCount()).isZero();
    }

    @Test
    void aServerWithoutTheClientsSessionAnswers404AtOnceForItsDomains() throws Exception {
        int vhostA = FreePorts.one();
        int vhostB = FreePorts.one();
        int bindA = FreePorts.one();
        TunnelServer[] a = {TunnelServer.start(withVhost(bindA, vhostA))};
        tunnel.closeAfterTest(() -> a[0].close());
        TunnelServer b = tunnel.startServer(withVhost(0, vhostB));
        WebApp site = tunnel.closeAfterTest(new WebApp("site"));
        ClientConfig cc = client(a[0], b);
        cc.serverMode = "failover";
        cc.proxies.add(VhostTest.http("site", site.port(), "app.example.test"));
        TunnelClient client = tunnel.startClient(cc);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> status(vhostA) == 200);
        assertThat(status(vhostB)).as("b has no session for it").isEqualTo(404);

        a[0].close();
        await("served by b").atMost(Duration.ofSeconds(5)).ignoreExceptions().until(() -> status(vhostB) == 200);
        a[0] = TunnelServer.start(withVhost(bindA, vhostA));
        await("served by a again").atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> status(vhostA) == 200);
        await("b refuses at once").atMost(Duration.ofSeconds(2)).until(() -> status(vhostB) == 404);
        long start = System.nanoTime();
        assertThat(status(vhostB)).isEqualTo(404);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("a 404 without waiting").isLessThan(1_000);
    }

    private static int status(int vhostPort) throws Exception {
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            return conn.get("app.example.test", "/").status();
        }
    }

    private static ServerConfig withWeb(int webPort) {
        ServerConfig sc = TunnelExtension.serverConfig();
        sc.webServer.port = webPort;
        return sc;
    }

    private static ServerConfig withTls(TestPki.Files cert) {
        ServerConfig sc = TunnelExtension.serverConfig();
        sc.transport.tls.certFile = cert.certPath();
        sc.transport.tls.keyFile = cert.keyPath();
        return sc;
    }

    private static ServerConfig withVhost(int bindPort, int vhostPort) {
        ServerConfig sc = TunnelExtension.serverConfig();
        sc.bindPort = bindPort;
        sc.vhostHTTPPort = vhostPort;
        sc.transport.drainTimeout = 0;
        return sc;
    }

    private static ServerEntry server(TunnelServer s, String pin) {
        ServerEntry e = new ServerEntry();
        e.addr = "127.0.0.1";
        e.port = s.port();
        e.transport.tls.serverFingerprint = pin;
        return e;
    }

    private static ClientConfig client(TunnelServer... servers) {
        ClientConfig cc = new ClientConfig();
        cc.auth.token = TunnelExtension.TOKEN;
        cc.transport.tls.enable = false;
        cc.loginFailExit = false;
        cc.transport.drainTimeout = 1;
        cc.serverAddrs = java.util.Arrays.stream(servers).map(s -> "127.0.0.1:" + s.port()).toList();
        return cc;
    }

    private JsonNode json(int port, String path) throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).as(path).isEqualTo(200);
        return new ObjectMapper().readTree(res.body());
    }
}
