package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tunnel.bench.LinkEmulator;
import dev.tunnel.client.ServerStatus;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One client on two servers ({@code serverAddrs}). The servers run on one machine, so each
 * opens its public ports on its own loopback address ({@code proxyBindAddr} 127.0.0.2 and
 * 127.0.0.3) with the same {@code remotePort}, as two VPSs would.
 */
@Timeout(60)
class MultiServerTest {
    static final int HEARTBEAT_TIMEOUT = 3;
    static final String HOST_A = "127.0.0.2";
    static final String HOST_B = "127.0.0.3";

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private final int remotePort = FreePorts.one();

    static ServerConfig serverConfig(String proxyHost, int bindPort) {
        ServerConfig sc = TunnelExtension.serverConfig();
        sc.bindPort = bindPort;
        sc.proxyBindAddr = proxyHost;
        sc.transport.heartbeatTimeout = HEARTBEAT_TIMEOUT;
        sc.transport.drainTimeout = 0;
        return sc;
    }

    private ClientConfig clientConfig(String mode, int echoPort, TunnelServer... servers) {
        ClientConfig cc = new ClientConfig();
        cc.auth.token = TunnelExtension.TOKEN;
        cc.transport.tls.enable = false;
        cc.loginFailExit = false;
        cc.serverMode = mode;
        cc.serverAddrs = Arrays.stream(servers).map(s -> "127.0.0.1:" + s.port()).toList();
        cc.transport.heartbeatInterval = 1;
        cc.transport.tcpMuxKeepaliveInterval = 1;
        cc.transport.heartbeatTimeout = HEARTBEAT_TIMEOUT;
        cc.transport.drainTimeout = 10;
        cc.proxies.add(TunnelExtension.proxyConfig("echo", echoPort, remotePort));
        return cc;
    }

    private static List<ServerStatus.State> states(TunnelClient client) {
        return client.servers().stream().map(ServerStatus::state).toList();
    }

    @Test
    void allModeServesOnEveryServerAndSurvivesTheLossOfOne() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer b = tunnel.startServer(serverConfig(HOST_B, 0));
        int bindA = FreePorts.one();
        TunnelServer[] a = {TunnelServer.start(serverConfig(HOST_A, bindA))};
        tunnel.closeAfterTest(() -> a[0].close());
        TunnelClient client = tunnel.startClient(clientConfig("all", echo.port(), a[0], b));
        client.firstLogin().get(10, TimeUnit.SECONDS);

        await("echo on both servers").atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> echoes(HOST_A) && echoes(HOST_B));
        assertThat(a[0].sessionCount()).isEqualTo(1);
        assertThat(b.sessionCount()).isEqualTo(1);
        assertThat(states(client)).containsExactly(ServerStatus.State.ONLINE, ServerStatus.State.ONLINE);

        try (PublicConn inFlight = new PublicConn(HOST_B, remotePort)) {
            inFlight.roundTrip(1);
            a[0].close();
            await("the client sees server A gone").atMost(Duration.ofSeconds(HEARTBEAT_TIMEOUT + 2))
                    .until(() -> states(client).get(0) != ServerStatus.State.ONLINE);
            assertThatThrownBy(() -> new Socket(HOST_A, remotePort).close()).isInstanceOf(ConnectException.class);
            inFlight.roundTrip(2); // through server B, not reset
            assertThat(echoes(HOST_B)).isTrue();

            a[0] = TunnelServer.start(serverConfig(HOST_A, bindA));
            long restarted = System.nanoTime();
            await("the client back on server A").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions().until(() -> echoes(HOST_A));
            long backMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted);
            System.out.printf("all mode: client back on the restarted server after %d ms%n", backMillis);
            assertThat(backMillis).isLessThanOrEqualTo(3_500);
            inFlight.roundTrip(3);
        }
        assertThat(states(client)).containsExactly(ServerStatus.State.ONLINE, ServerStatus.State.ONLINE);
    }

    /** In pool mode the connection in flight rides a work connection, which the draining session waits for too. */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void failoverMovesToTheNextServerAndBackWithoutDroppingConnectionsInFlight(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig second = serverConfig(HOST_B, 0);
        mode.apply(second);
        TunnelServer b = tunnel.startServer(second);
        int bindA = FreePorts.one();
        ServerConfig first = serverConfig(HOST_A, bindA);
        mode.apply(first);
        TunnelServer[] a = {TunnelServer.start(first)};
        tunnel.closeAfterTest(() -> a[0].close());
        ClientConfig cc = clientConfig("failover", echo.port(), a[0], b);
        mode.apply(cc);
        TunnelClient client = tunnel.startClient(cc);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        await("echo on the first server").atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> echoes(HOST_A));
        assertThat(b.sessionCount()).as("the second server is not used while the first serves").isZero();
        assertThat(states(client)).containsExactly(ServerStatus.State.ONLINE, ServerStatus.State.IDLE);

        a[0].close();
        long lost = System.nanoTime();
        await("echo on the second server").atMost(Duration.ofSeconds(HEARTBEAT_TIMEOUT + 2))
                .pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> echoes(HOST_B));
        System.out.printf("failover: proxy on the second server %d ms after the first went down%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lost));

        try (PublicConn inFlight = new PublicConn(HOST_B, remotePort)) {
            inFlight.roundTrip(1);
            a[0] = TunnelServer.start(first);
            await("the client back on the first server").atMost(Duration.ofSeconds(10)).ignoreExceptions()
                    .until(() -> echoes(HOST_A));
            await("the second server's public port closed").atMost(Duration.ofSeconds(3))
                    .until(() -> refused(HOST_B));
            assertThat(states(client)).containsExactly(ServerStatus.State.ONLINE, ServerStatus.State.DRAINING);
            inFlight.roundTrip(2); // still carried by the draining session
        }
        await("the drained session closed once its connection ended").atMost(Duration.ofSeconds(3))
                .until(() -> b.sessionCount() == 0);
        assertThat(states(client)).containsExactly(ServerStatus.State.ONLINE, ServerStatus.State.STOPPED);
    }

    @Test
    void failoverNoticesASilentServerWithinItsHeartbeatTimeout() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer a = tunnel.startServer(serverConfig(HOST_A, 0));
        TunnelServer b = tunnel.startServer(serverConfig(HOST_B, 0));
        LinkEmulator link = tunnel.linkTo(a.port()); // the client reaches server a through it
        ClientConfig cc = clientConfig("failover", echo.port(), a, b);
        cc.serverAddrs = List.of("127.0.0.1:" + link.port(), "127.0.0.1:" + b.port());
        TunnelClient client = tunnel.startClient(cc);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        await("echo on the first server").atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> echoes(HOST_A));

        link.fault(LinkEmulator.Fault.STALL); // a dead host: nothing arrives, nothing closes
        long silent = System.nanoTime();
        await("echo on the second server").atMost(Duration.ofSeconds(HEARTBEAT_TIMEOUT + 2))
                .pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> echoes(HOST_B));
        System.out.printf("failover: proxy on the second server %d ms after the first went silent%n",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silent));

        link.fault(LinkEmulator.Fault.NONE);
        await("back on the first server once it answers again").atMost(Duration.ofSeconds(HEARTBEAT_TIMEOUT + 10))
                .ignoreExceptions().until(() -> echoes(HOST_A) && refused(HOST_B));
        assertThat(states(client).get(0)).isEqualTo(ServerStatus.State.ONLINE);
    }

    private boolean refused(String host) {
        try (Socket s = new Socket(host, remotePort)) {
            return false;
        } catch (IOException e) {
            return e instanceof ConnectException;
        }
    }

    private boolean echoes(String host) throws IOException {
        return PublicConn.echoes(host, remotePort);
    }
}
