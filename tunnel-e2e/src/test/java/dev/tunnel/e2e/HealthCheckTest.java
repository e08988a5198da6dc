package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.server.TunnelServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code healthCheck}: a proxy whose local app goes down is withdrawn from the server (its public
 * port stops taking connections) and comes back on the same port when the app does; a proxy
 * whose app is down at start is not registered until it is up.
 */
@Timeout(90)
class HealthCheckTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aProxyIsWithdrawnWhileItsLocalAppIsDownAndComesBackWithIt(Mode mode) throws Exception {
        ServerSocket app = listen(0);
        int appPort = app.getLocalPort();
        Thread serving = greet(app);
        int remotePort = FreePorts.one();
        ProxyConfig proxy = TunnelExtension.proxyConfig("web", appPort, remotePort);
        proxy.healthCheck.type = "tcp";
        proxy.healthCheck.intervalSeconds = 1;
        proxy.healthCheck.timeoutSeconds = 2;
        proxy.healthCheck.maxFailed = 2;
        ServerSocket back = null;
        try {
            TunnelExtension.Tunnel t = tunnel.builder().mode(mode).client(c -> c.proxies.add(proxy)).start();
            TunnelServer server = t.server();
            TunnelClient client = t.client();
            assertThat(t.port("web")).isEqualTo(remotePort);
            assertThat(readGreeting(remotePort)).isEqualTo("up");

            app.close();
            serving.join(5000);
            await("withdrawn from the server").atMost(WAIT).untilAsserted(() -> {
                assertThat(client.healthFailure("web")).get().asString().contains("cannot connect");
                assertThat(server.proxies()).isEmpty();
            });
            await("its public port is closed").atMost(WAIT).untilAsserted(() ->
                    assertThatThrownBy(() -> new Socket("127.0.0.1", remotePort).close())
                            .isInstanceOf(ConnectException.class));

            back = listen(appPort);
            greet(back);
            await("registered again when the app is back").atMost(WAIT).untilAsserted(() -> {
                assertThat(client.healthFailure("web")).isEmpty();
                assertThat(server.proxies()).extracting(p -> p.remotePort()).containsExactly(remotePort);
            });
            assertThat(readGreeting(remotePort)).isEqualTo("up");
        } finally {
            app.close();
            if (back != null) {
                back.close();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = "MUX")
    void aProxyWhoseAppIsDownAtStartIsRegisteredOnlyOnceItIsUp(Mode mode) throws Exception {
        int appPort;
        try (ServerSocket probe = listen(0)) {
            appPort = probe.getLocalPort();
        }
        EchoServer other = tunnel.echoServer();
        ProxyConfig proxy = TunnelExtension.proxyConfig("later", appPort, 0);
        proxy.healthCheck.type = "tcp";
        proxy.healthCheck.intervalSeconds = 1;
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode).proxy("now", other.port()).start();
        t.client().addProxy(proxy);
        await("the first check fails").atMost(WAIT).until(() -> !t.client().healthFailure("later").orElse("").isEmpty());
        TimeUnit.SECONDS.sleep(2);
        assertThat(t.server().proxies()).extracting(p -> p.name()).containsExactly("now");
        try (ServerSocket app = listen(appPort)) {
            greet(app);
            await("registered once the app is up").atMost(WAIT).untilAsserted(() ->
                    assertThat(t.server().proxies()).extracting(p -> p.name()).containsExactlyInAnyOrder("now", "later"));
            assertThat(readGreeting(t.port("later"))).isEqualTo("up");
        }
    }

    private static ServerSocket listen(int port) throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        return s;
    }

    /** Serves "up\n" to each connection until the socket closes. */
    private static Thread greet(ServerSocket server) {
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    s.getOutputStream().write("up\n".getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    return;
                }
            }
        }, "health-app");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static String readGreeting(int port) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            return new String(s.getInputStream().readNBytes(2), StandardCharsets.US_ASCII);
        }
    }
}
