package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code loadBalancer.group}: tcp proxies of two clients share one public port; connections go
 * to the members in turn; a wrong groupKey or another remotePort is refused with the reason; the
 * others keep serving when one member leaves, and the port closes with the last one.
 */
@Timeout(90)
class LoadBalancerTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void twoClientsShareOnePortInTurnAndTheOtherKeepsServingWhenOneLeaves() throws Exception {
        LocalApp a = tunnel.localApp(s -> s.getOutputStream().write("a\n".getBytes(StandardCharsets.US_ASCII)));
        LocalApp b = tunnel.localApp(s -> s.getOutputStream().write("b\n".getBytes(StandardCharsets.US_ASCII)));
        int port = FreePorts.one();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        TunnelClient first = client(server, "web-a", a.port(), port, "g", "key", Mode.MUX);
        TunnelClient second = client(server, "web-b", b.port(), port, "g", "key", Mode.MUX);
        assertThat(first.awaitRemotePort("web-a", WAIT)).isEqualTo(port);
        assertThat(second.awaitRemotePort("web-b", WAIT)).isEqualTo(port);

        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            seen.add(greeting(port));
        }
        assertThat(seen).as("round robin over the two members").containsExactly("a", "b", "a", "b", "a", "b");

        first.close();
        await("the other member keeps serving").atMost(WAIT).untilAsserted(() ->
                assertThat(List.of(greeting(port), greeting(port), greeting(port))).containsOnly("b"));

        second.close();
        await("the port closes with the last member").atMost(WAIT).untilAsserted(() ->
                assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class));
    }

    @Test
    void aWrongGroupKeyOrAnotherPortIsRefusedWithTheReasonAndTheGroupServesOn() throws Exception {
        LocalApp a = tunnel.localApp(s -> s.getOutputStream().write("a\n".getBytes(StandardCharsets.US_ASCII)));
        int port = FreePorts.one();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        TunnelClient owner = client(server, "web-a", a.port(), port, "g", "right", Mode.MUX);
        assertThat(owner.awaitRemotePort("web-a", WAIT)).isEqualTo(port);

        TunnelClient intruder = client(server, "web-x", a.port(), port, "g", "wrong", Mode.MUX);
        assertThatThrownBy(() -> intruder.awaitRemotePort("web-x", WAIT))
                .hasMessageContaining("loadBalancer.groupKey does not match the key of group \"g\"");
        TunnelClient elsewhere = client(server, "web-y", a.port(), FreePorts.one(), "g", "right", Mode.MUX);
        assertThatThrownBy(() -> elsewhere.awaitRemotePort("web-y", WAIT))
                .hasMessageContaining("group \"g\" listens on remotePort " + port);
        assertThat(greeting(port)).isEqualTo("a");
    }

    @Test
    void poolModeMembersShareThePortInTurnToo() throws Exception {
        // pool mode: each member's connections ride their own client's work connections
        LocalApp a = tunnel.localApp(s -> s.getOutputStream().write("a\n".getBytes(StandardCharsets.US_ASCII)));
        LocalApp b = tunnel.localApp(s -> s.getOutputStream().write("b\n".getBytes(StandardCharsets.US_ASCII)));
        int port = FreePorts.one();
        ServerConfig config = TunnelExtension.serverConfig();
        Mode.POOL.apply(config);
        TunnelServer server = tunnel.startServer(config);
        TunnelClient first = client(server, "web-a", a.port(), port, "g", "key", Mode.POOL);
        TunnelClient second = client(server, "web-b", b.port(), port, "g", "key", Mode.POOL);
        first.awaitRemotePort("web-a", WAIT);
        second.awaitRemotePort("web-b", WAIT);
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            seen.add(greeting(port));
        }
        assertThat(seen).containsExactly("a", "b", "a", "b");
        assertThat(server.proxies()).extracting(p -> p.remotePort()).containsOnly(port);
    }

    @Test
    void anAttackerCannotGuessTheKeyFasterThanOneProxyAtATime() throws Exception {
        // A wrong key costs a NEW_PROXY round trip and is refused each time: the group's members
        // are untouched however many wrong keys arrive.
        LocalApp a = tunnel.localApp(s -> s.getOutputStream().write("a\n".getBytes(StandardCharsets.US_ASCII)));
        int port = FreePorts.one();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        TunnelClient owner = client(server, "web-a", a.port(), port, "g", "right", Mode.MUX);
        owner.awaitRemotePort("web-a", WAIT);
        TunnelClient attacker = tunnel.startClient(TunnelExtension.clientConfig(server, false));
        attacker.firstLogin().get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 50; i++) {
            ProxyConfig guess = TunnelExtension.proxyConfig("guess" + i, a.port(), port);
            guess.loadBalancer.group = "g";
            guess.loadBalancer.groupKey = "guess" + i;
            attacker.addProxy(guess);
        }
        await().atMost(WAIT).until(() -> attacker.proxy("guess49").isPresent());
        for (int i = 0; i < 50; i++) {
            assertThat(attacker.proxy("guess" + i)).get().satisfies(s -> assertThat(s.ok()).isFalse());
        }
        assertThat(server.proxies()).extracting(p -> p.name()).containsExactly("web-a");
        assertThat(List.of(greeting(port), greeting(port))).containsOnly("a");
    }

    private TunnelClient client(TunnelServer server, String name, int localPort, int remotePort, String group,
                                String key, Mode mode) throws Exception {
        ClientConfig config = TunnelExtension.clientConfig(server, false);
        mode.apply(config);
        ProxyConfig proxy = TunnelExtension.proxyConfig(name, localPort, remotePort);
        proxy.loadBalancer.group = group;
        proxy.loadBalancer.groupKey = key;
        config.proxies.add(proxy);
        TunnelClient client = tunnel.startClient(config);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        return client;
    }

    private static String greeting(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            return new String(s.getInputStream().readNBytes(1), StandardCharsets.US_ASCII);
        }
    }
}
