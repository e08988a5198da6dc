package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Login outcomes a user sees: a wrong token, TLS required or optional. */
@Timeout(30)
class LoginTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void wrongTokenFailsFirstLoginAndOpensNoPort() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        int remotePort = FreePorts.one();
        ClientConfig config = TunnelExtension.clientConfig(server, false);
        config.auth.token = "not-the-token";
        config.proxies.add(TunnelExtension.proxyConfig("echo", echo.port(), remotePort));
        TunnelClient client = tunnel.startClient(config);

        assertThatThrownBy(() -> client.firstLogin().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().hasMessageContaining("authorization failed").hasMessageContaining("auth.token");
        assertThat(client.proxy("echo")).as("no answer about the proxy").isEmpty();
        assertThat(FreePorts.canBind(remotePort)).as("the requested remotePort was never opened").isTrue();
    }

    @Test
    void serverForcingTlsRefusesAPlainClientWithAClearMessage() throws Exception {
        TunnelServer server = tunnel.startServer(forceTls());
        EchoServer echo = tunnel.echoServer();
        ClientConfig config = TunnelExtension.clientConfig(server, false);
        config.proxies.add(TunnelExtension.proxyConfig("echo", echo.port(), 0));
        TunnelClient client = tunnel.startClient(config);

        assertThatThrownBy(() -> client.firstLogin().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().hasMessageContaining("transport.tls.force = true")
                .hasMessageContaining("transport.tls.enable = true");
    }

    @Test
    void serverForcingTlsAcceptsATlsClient() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder().tls(true).server(c -> c.transport.tls.force = true)
                .proxy("echo", echo.port()).start();
        assertEchoes(t.port("echo"), "over forced TLS");
    }

    @Test
    void serverWithOptionalTlsAcceptsTlsAndPlainClientsTogether() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel tls = tunnel.builder().tls(true).proxy("tls", echo.port()).start();
        TunnelExtension.Tunnel plain = tunnel.builder().tls(false).existingServer(tls.server())
                .proxy("plain", echo.port()).start();

        assertEchoes(tls.port("tls"), "through the TLS client");
        assertEchoes(plain.port("plain"), "through the plain client");
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "server tcpMux={0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void tcpMuxMismatchIsAClearLoginErrorOnBothSides(boolean serverMux) throws Exception {
        ServerConfig sc = TunnelExtension.serverConfig();
        sc.transport.tcpMux = serverMux;
        TunnelServer server = tunnel.startServer(sc);
        ClientConfig config = TunnelExtension.clientConfig(server, false);
        config.transport.tcpMux = !serverMux;
        TunnelClient client = tunnel.startClient(config);

        assertThatThrownBy(() -> client.firstLogin().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().hasMessageContaining("transport.tcpMux mismatch")
                .hasMessageContaining("client has " + !serverMux).hasMessageContaining("server has " + serverMux);
        assertThat(CapturedLogs.snapshot()).as("the server log says it too")
                .anyMatch(line -> line.contains("login refused: client transport.tcpMux = " + !serverMux));
    }

    private static ServerConfig forceTls() {
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.tls.force = true;
        return config;
    }

    private static void assertEchoes(int port, String text) throws Exception {
        byte[] data = text.getBytes(StandardCharsets.UTF_8);
        assertThat(PublicClient.roundTrip(port, data)).isEqualTo(Payloads.summary(data));
    }
}
