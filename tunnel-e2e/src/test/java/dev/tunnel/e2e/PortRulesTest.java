package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tunnel.server.config.ServerConfig;
import dev.tunnel.server.config.PortRange;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The server's rules on public ports, as a client sees them: each refused proxy gets a reason
 * naming the rule, the client's other proxies keep working, and ports come back as soon as a
 * client goes away.
 */
@Timeout(30)
class PortRulesTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void portAlreadyTakenIsRefusedAndTheOtherProxyWorks() throws Exception {
        ServerSocket taken = tunnel.closeAfterTest(new ServerSocket(FreePorts.one(), 1, InetAddress.getLoopbackAddress()));
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder()
                .proxy("taken", echo.port(), taken.getLocalPort())
                .proxy("echo", echo.port())
                .start();

        assertThat(t.error("taken")).isEqualTo("port " + taken.getLocalPort() + " is already in use on 127.0.0.1");
        assertEchoes(t.port("echo"));
    }

    @Test
    void tunnelPortInUseFailsServerStartWithTheDocumentedMessage() throws Exception {
        ServerSocket taken = tunnel.closeAfterTest(new ServerSocket(FreePorts.one(), 1, InetAddress.getLoopbackAddress()));
        ServerConfig config = TunnelExtension.serverConfig();
        config.bindPort = taken.getLocalPort();

        assertThatThrownBy(() -> tunnel.startServer(config))
                .hasMessage("failed to bind on [127.0.0.1:" + taken.getLocalPort() + "]: address in use");
    }

    @Test
    void portOutsideAllowPortsIsRefused() throws Exception {
        int low = FreePorts.range(10);
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder()
                .server(c -> c.allowPorts.add(range(low, low + 9)))
                .proxy("outside", echo.port(), low + 10)
                .proxy("inside", echo.port(), low + 3)
                .start();

        assertThat(t.error("outside")).contains("allowPorts").contains(String.valueOf(low + 10));
        assertThat(t.port("inside")).isEqualTo(low + 3);
        assertEchoes(t.port("inside"));
    }

    @Test
    void singlePortInAllowPortsIsAllowed() throws Exception {
        int low = FreePorts.range(10);
        int single = FreePorts.one();
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder()
                .server(c -> {
                    c.allowPorts.add(range(low, low + 9));
                    c.allowPorts.add(single(single));
                })
                .proxy("single", echo.port(), single)
                .proxy("next-to-single", echo.port(), single == low - 1 ? single - 1 : single + 1)
                .start();

        assertThat(t.port("single")).isEqualTo(single);
        assertEchoes(single);
        assertThat(t.error("next-to-single")).contains("allowPorts");
    }

    @Test
    void remotePortZeroPicksAPortInsideAllowPorts() throws Exception {
        int low = FreePorts.range(10);
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder()
                .server(c -> c.allowPorts.add(range(low, low + 9)))
                .proxy("a", echo.port(), 0)
                .proxy("b", echo.port(), 0)
                .start();

        assertThat(t.port("a")).isBetween(low, low + 9);
        assertThat(t.port("b")).isBetween(low, low + 9).isNotEqualTo(t.port("a"));
        assertEchoes(t.port("a"));
        assertEchoes(t.port("b"));
    }

    @Test
    void remotePortZeroSkipsAllowedPortsThatAnotherProcessHolds() throws Exception {
        int low = FreePorts.range(10);
        for (int port = low; port < low + 9; port++) {
            tunnel.closeAfterTest(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
        }
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder()
                .server(c -> c.allowPorts.add(range(low, low + 9)))
                .proxy("echo", echo.port(), 0)
                .start();

        assertThat(t.port("echo")).as("the only allowed port nobody holds").isEqualTo(low + 9);
        assertEchoes(low + 9);
    }

    @Test
    void maxPortsPerClientRefusesTheSecondProxy() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder()
                .server(c -> c.maxPortsPerClient = 1)
                .proxy("first", echo.port())
                .proxy("second", echo.port())
                .start();

        assertEchoes(t.port("first"));
        assertThat(t.error("second")).contains("maxPortsPerClient");
    }

    @Test
    void disconnectedClientReleasesItsPortsAtOnce() throws Exception {
        int remotePort = FreePorts.one();
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel first = tunnel.builder().proxy("echo", echo.port(), remotePort).start();
        assertEchoes(first.port("echo"));

        first.client().close();
        await("remotePort released").atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(50))
                .until(() -> FreePorts.canBind(remotePort));

        TunnelExtension.Tunnel second = tunnel.builder().existingServer(first.server())
                .proxy("echo", echo.port(), remotePort).start();
        assertThat(second.port("echo")).isEqualTo(remotePort);
        assertEchoes(remotePort);
    }

    private static PortRange range(int start, int end) {
        PortRange range = new PortRange();
        range.start = start;
        range.end = end;
        return range;
    }

    private static PortRange single(int port) {
        PortRange range = new PortRange();
        range.single = port;
        return range;
    }

    private static void assertEchoes(int port) throws Exception {
        byte[] data = ("hello through " + port).getBytes(StandardCharsets.UTF_8);
        assertThat(PublicClient.roundTrip(port, data)).isEqualTo(Payloads.summary(data));
    }
}
