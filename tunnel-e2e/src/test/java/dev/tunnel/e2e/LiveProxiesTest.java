package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.e2e.TunnelExtension.Tunnel;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client's proxies change on a live session: one proxy is added, changed or removed without
 * touching the others, and a removed proxy's public port and connections close on the server.
 */
@Timeout(60)
class LiveProxiesTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aProxyAddedToARunningClientCarriesConnections(Mode mode) throws Exception {
        EchoServer first = tunnel.echoServer();
        EchoServer second = tunnel.echoServer();
        Tunnel t = tunnel.builder().mode(mode).proxy("first", first.port()).start();
        t.client().addProxy(TunnelExtension.proxyConfig("second", second.port(), 0));
        int port = t.port("second");
        byte[] data = Payloads.random(50_000, 1);
        assertThat(PublicClient.roundTrip(port, data)).isEqualTo(Payloads.summary(data));
        assertThat(PublicClient.roundTrip(t.port("first"), data)).as("the other proxy is untouched")
                .isEqualTo(Payloads.summary(data));
        assertThatThrownBy(() -> t.client().addProxy(TunnelExtension.proxyConfig("second", second.port(), 0)))
                .hasMessageContaining("proxy [second] already exists");
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aRemovedProxyClosesItsPortAndItsConnections(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        EchoServer other = tunnel.echoServer();
        Tunnel t = tunnel.builder().mode(mode).proxy("gone", echo.port()).proxy("stays", other.port()).start();
        int port = t.port("gone");
        try (Socket open = new Socket("127.0.0.1", port)) {
            open.setSoTimeout(10_000);
            open.getOutputStream().write('x');
            assertThat(open.getInputStream().read()).as("the connection works").isEqualTo('x');

            assertThat(t.client().removeProxy("gone")).isTrue();
            assertThat(readToEnd(open.getInputStream())).as("the server closes the proxy's open connection").isTrue();
        }
        await("the public port closes").atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class));
        assertThat(t.server().proxies()).extracting(p -> p.name()).containsExactly("stays");
        byte[] data = Payloads.random(10_000, 2);
        assertThat(PublicClient.roundTrip(t.port("stays"), data)).isEqualTo(Payloads.summary(data));
        assertThat(t.client().removeProxy("gone")).as("removing twice").isFalse();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aChangedProxyKeepsItsIdAndGoesToItsNewLocalApp(Mode mode) throws Exception {
        EchoServer before = tunnel.echoServer();
        LocalApp after = tunnel.localApp(socket -> socket.getOutputStream().write("new app\n".getBytes()));
        Tunnel t = tunnel.builder().mode(mode).proxy("web", before.port()).start();
        int oldPort = t.port("web");
        ProxyConfig changed = TunnelExtension.proxyConfig("web", after.port(), oldPort);
        t.client().updateProxy(changed);
        TunnelClient client = t.client();
        await().atMost(TunnelExtension.LOGIN_TIMEOUT).until(() -> client.proxy("web").isPresent());
        assertThat(t.port("web")).as("same public port, bound again").isEqualTo(oldPort);
        try (Socket s = new Socket("127.0.0.1", oldPort)) {
            s.setSoTimeout(10_000);
            assertThat(new String(s.getInputStream().readNBytes(8))).isEqualTo("new app\n");
        }
        assertThat(t.server().proxies()).singleElement().satisfies(p -> assertThat(p.remotePort()).isEqualTo(oldPort));
    }

    /** True once the peer closed the connection (EOF or reset); false if it stays open for the read timeout. */
    private static boolean readToEnd(InputStream in) {
        try {
            while (in.read() >= 0) {
                // drain
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}
