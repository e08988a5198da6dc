package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.bench.LinkEmulator;
import dev.tunnel.bench.LinkEmulator.Fault;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.server.ProxyStatus;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A proxy name is taken once per user over every client, as in frp: a second client of the same
 * user asking for {@code web} is refused with frp's {@code proxy [web] already exists}, logged on
 * both sides, and the first keeps its proxy, its status and its traffic. A client that comes back
 * on a new connection (same run id) gets its own names again.
 */
@Timeout(60)
class ProxyNamesTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private final int vhostPort = FreePorts.one();

    private TunnelClient client(TunnelServer server, int serverPort, WebApp app, String domain) throws Exception {
        ClientConfig config = TunnelExtension.clientConfig(server, false);
        config.serverPort = serverPort;
        config.loginFailExit = false;
        config.proxies.add(VhostTest.http("web", app.port(), domain));
        TunnelClient client = tunnel.startClient(config);
        await("an answer about [web]").atMost(WAIT).until(() -> client.proxy("web").isPresent());
        return client;
    }

    private TunnelServer server() throws Exception {
        ServerConfig config = TunnelExtension.serverConfig();
        config.vhostHTTPPort = vhostPort;
        return tunnel.startServer(config);
    }

    @Test
    void aSecondClientOfTheSameUserIsRefusedTheNameAndTheFirstKeepsIt() throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        WebApp b = tunnel.closeAfterTest(new WebApp("b"));
        TunnelServer server = server();
        TunnelClient first = client(server, server.port(), a, "a.example.test");
        assertThat(first.proxy("web").orElseThrow().error()).isEmpty();
        TunnelClient second = client(server, server.port(), b, "b.example.test");

        assertThat(second.proxy("web").orElseThrow().error()).contains("proxy [web] already exists");
        awaitLog(line -> line.contains("[tunnel-client") && line.contains("proxy [web] start error")
                && line.contains("proxy [web] already exists"));
        awaitLog(line -> line.contains("proxy [web] refused: proxy [web] already exists (held by client session ")
                && line.contains("client session "));
        List<ProxyStatus> running = server.proxies();
        assertThat(running).hasSize(1);
        String firstSession = running.get(0).session();

        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get("a.example.test", "/").text()).startsWith("app=a ");
            assertThat(conn.get("b.example.test", "/").status()).isEqualTo(404);
        }
        second.close();
        assertThat(server.proxies()).singleElement().satisfies(p -> {
            assertThat(p.name()).isEqualTo("web");
            assertThat(p.session()).isEqualTo(firstSession);
        });
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get("a.example.test", "/after").text()).startsWith("app=a path=/after");
        }
    }

    @Test
    void aClientBackOnANewConnectionGetsItsOwnNamesAgain() throws Exception {
        WebApp a = tunnel.closeAfterTest(new WebApp("a"));
        TunnelServer server = server();
        LinkEmulator link = tunnel.linkTo(server.port());
        TunnelClient client = client(server, link.port(), a, "a.example.test");
        assertThat(client.proxy("web").orElseThrow().error()).isEmpty();

        // the client sees its connection reset and logs in again at once; the server still holds
        // the old session, which the new login (same run id) replaces
        link.fault(Fault.RESET_CLIENT_SIDE);
        link.fault(Fault.NONE);
        await("logged in again").atMost(WAIT).until(() -> CapturedLogs.snapshot().stream()
                .filter(line -> line.contains("logged in to server")).count() >= 2);
        await("[web] registered again").atMost(WAIT).until(() -> client.proxy("web").isPresent());
        assertThat(client.proxy("web").orElseThrow().error()).isEmpty();
        await().atMost(WAIT).untilAsserted(() -> {
            try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
                assertThat(conn.get("a.example.test", "/back").text()).startsWith("app=a path=/back");
            }
        });
    }

    private static void awaitLog(java.util.function.Predicate<String> line) {
        await().atMost(WAIT).until(() -> CapturedLogs.snapshot().stream().anyMatch(line));
    }
}
