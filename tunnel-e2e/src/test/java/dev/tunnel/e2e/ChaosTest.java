package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.bench.LinkEmulator;
import dev.tunnel.bench.LinkEmulator.Fault;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Links and processes fail; the tunnel comes back by itself, and no byte is ever corrupted or
 * handed to the wrong stream. Every case runs in mux and pool mode, with short heartbeats
 * (client pings every 1 s, either side gives up after 3 s of silence) so they stay fast. After
 * each fault, new connections must work again within {@link #RECOVERY}: heartbeat timeout +
 * first reconnect delay (1 s +-20 %) + login, with margin.
 *
 * <p>Link faults come from the bench {@link LinkEmulator} between the client and the server.
 */
@Timeout(90)
class ChaosTest {
    static final int HEARTBEAT_TIMEOUT = 3;
    static final Duration RECOVERY = Duration.ofSeconds(10);

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private static ServerConfig server(Mode mode, int bindPort) {
        ServerConfig sc = TunnelExtension.serverConfig();
        sc.bindPort = bindPort;
        mode.apply(sc);
        sc.transport.heartbeatTimeout = HEARTBEAT_TIMEOUT;
        sc.transport.tcpMuxKeepaliveInterval = 1;
        sc.transport.drainTimeout = 0;
        sc.userConnTimeout = 3;
        return sc;
    }

    private static void clientSettings(Mode mode, ClientConfig cc, int serverPort) {
        mode.apply(cc);
        cc.serverPort = serverPort;
        cc.loginFailExit = false;
        cc.transport.heartbeatInterval = 1;
        cc.transport.tcpMuxKeepaliveInterval = 1;
        cc.transport.heartbeatTimeout = HEARTBEAT_TIMEOUT;
        cc.transport.drainTimeout = 0;
    }

    private TunnelClient client(Mode mode, TunnelServer server, int serverPort, int localPort, int remotePort)
            throws Exception {
        ClientConfig cc = TunnelExtension.clientConfig(server, false);
        clientSettings(mode, cc, serverPort);
        cc.proxies.add(TunnelExtension.proxyConfig("echo", localPort, remotePort));
        TunnelClient client = tunnel.startClient(cc);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        client.awaitRemotePort("echo", Duration.ofSeconds(10));
        return client;
    }

    /** Waits until a new public connection echoes intact again; returns how long that took. */
    private static Duration awaitWorking(int port, Duration within) {
        long start = System.nanoTime();
        byte[] probe = Payloads.random(32 * 1024, 99);
        await("new connections work again").atMost(within).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> {
                    byte[] back = Load.exchange(port, probe);
                    return java.util.Arrays.equals(back, probe);
                });
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /** Sets {@code fault} and ends it at once: it hits the link's connections open now, not new ones. */
    private static void hitOpenConnections(LinkEmulator link, Fault fault) {
        link.fault(fault);
        link.fault(Fault.NONE);
    }

    /** Whether the client's heartbeat gave up on its connection (its own log says so). */
    private static boolean clientHeardNothing() {
        return CapturedLogs.snapshot().stream()
                .anyMatch(line -> line.contains("[tunnel-client") && line.contains("heard nothing from the peer"));
    }

    private static void assertIntact(Load load) {
        assertThat(load.corrupt()).as("bytes that came back different from what was sent").isEmpty();
        assertThat(load.ok()).as("connections that completed").isPositive();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void serverRestartedUnderLoad(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int bindPort = FreePorts.one();
        int remotePort = FreePorts.one();
        TunnelServer first = TunnelServer.start(server(mode, bindPort));
        TunnelServer[] current = {first};
        tunnel.closeAfterTest(() -> current[0].close());
        client(mode, first, bindPort, echo.port(), remotePort);
        try (Load load = new Load(remotePort, 4)) {
            await().atMost(RECOVERY).until(() -> load.ok() >= 4);
            first.close();
            current[0] = TunnelServer.start(server(mode, bindPort));
            Duration back = awaitWorking(remotePort, RECOVERY);
            int okBefore = load.ok();
            await().atMost(RECOVERY).until(() -> load.ok() >= okBefore + 4);
            System.out.printf("chaos %s: server restarted, forwarding again after %d ms%n", mode, back.toMillis());
            load.close();
            assertIntact(load);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void clientRestartedUnderLoadGetsItsPortBackAtOnce(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int remotePort = FreePorts.one();
        TunnelServer server = tunnel.startServer(server(mode, 0));
        TunnelClient first = TunnelClient.start(configFor(mode, server, echo.port(), remotePort));
        first.firstLogin().get(10, TimeUnit.SECONDS);
        first.awaitRemotePort("echo", Duration.ofSeconds(10));
        try (Load load = new Load(remotePort, 4)) {
            await().atMost(RECOVERY).until(() -> load.ok() >= 4);
            first.close();
            TunnelClient second = tunnel.startClient(configFor(mode, server, echo.port(), remotePort));
            second.firstLogin().get(10, TimeUnit.SECONDS);
            assertThat(second.awaitRemotePort("echo", Duration.ofSeconds(10))).isEqualTo(remotePort);
            awaitWorking(remotePort, RECOVERY);
            load.close();
            assertIntact(load);
        }
    }

    private static ClientConfig configFor(Mode mode, TunnelServer server, int localPort, int remotePort) {
        ClientConfig cc = TunnelExtension.clientConfig(server, false);
        clientSettings(mode, cc, server.port());
        cc.proxies.add(TunnelExtension.proxyConfig("echo", localPort, remotePort));
        return cc;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void linkStalledSilentlyIsDetectedWithinTheHeartbeatTimeout(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int remotePort = FreePorts.one();
        TunnelServer server = tunnel.startServer(server(mode, 0));
        LinkEmulator link = tunnel.linkTo(server.port());
        TunnelClient client = client(mode, server, link.port(), echo.port(), remotePort);
        try (Load load = new Load(remotePort, 2)) {
            await().atMost(RECOVERY).until(() -> load.ok() >= 2);
            long stalledAt = System.nanoTime();
            link.fault(Fault.STALL);
            await("the server drops the silent session").atMost(Duration.ofSeconds(HEARTBEAT_TIMEOUT + 2))
                    .until(() -> server.sessionCount() == 0);
            long detected = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalledAt);
            // The emulator holds back rather than loses: once the stall ends it delivers the
            // server's close. So the stall lasts until the client's heartbeat has noticed too.
            await("the client drops the silent connection").atMost(Duration.ofSeconds(HEARTBEAT_TIMEOUT + 2))
                    .until(ChaosTest::clientHeardNothing);
            long clientDetected = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stalledAt);
            link.fault(Fault.NONE);
            Duration back = awaitWorking(remotePort, RECOVERY);
            System.out.printf("chaos %s: silent stall detected after %d ms (client: %d ms), forwarding again %d ms"
                    + " later (RTT %.2f ms)%n", mode, detected, clientDetected, back.toMillis(), client.rttMillis());
            load.close();
            assertIntact(load);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void linkReset(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int remotePort = FreePorts.one();
        TunnelServer server = tunnel.startServer(server(mode, 0));
        LinkEmulator link = tunnel.linkTo(server.port());
        client(mode, server, link.port(), echo.port(), remotePort);
        try (Load load = new Load(remotePort, 4)) {
            await().atMost(RECOVERY).until(() -> load.ok() >= 4);
            hitOpenConnections(link, Fault.RESET);
            awaitWorking(remotePort, RECOVERY);
            load.close();
            assertIntact(load);
        }
    }

    /**
     * The client's side of the link is reset while the server's side stays open and silent: the
     * server still holds a ghost session with the client's port when the client logs in again.
     * The new login (same run id) evicts it, so the fixed remotePort is free at once, long
     * before the server's own heartbeat timeout (60 s here) would notice.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void halfOpenConnectionLeavesNoGhostHoldingThePort(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int remotePort = FreePorts.one();
        ServerConfig sc = server(mode, 0);
        sc.transport.heartbeatTimeout = 60;
        TunnelServer server = tunnel.startServer(sc);
        LinkEmulator link = tunnel.linkTo(server.port());
        TunnelClient client = client(mode, server, link.port(), echo.port(), remotePort);
        awaitWorking(remotePort, RECOVERY);
        hitOpenConnections(link, Fault.RESET_CLIENT_SIDE);
        Duration back = awaitWorking(remotePort, RECOVERY);
        assertThat(client.proxy("echo").orElseThrow().error()).isEmpty();
        assertThat(server.sessionCount()).as("the ghost was evicted").isEqualTo(1);
        System.out.printf("chaos %s: half-open, forwarding again after %d ms%n", mode, back.toMillis());
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void localAppThatNeverReadsBlocksOnlyItsOwnConnection(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        LocalApp sink = tunnel.localApp(socket -> Thread.sleep(Long.MAX_VALUE));
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode).proxy("sink", sink.port()).proxy("echo", echo.port())
                .start();
        int sinkPort = t.port("sink");
        try (Socket stuck = new Socket("127.0.0.1", sinkPort)) {
            Thread writer = new Thread(() -> {
                try {
                    OutputStream out = stuck.getOutputStream();
                    byte[] chunk = new byte[64 * 1024];
                    for (int i = 0; i < 256; i++) {
                        out.write(chunk);
                    }
                } catch (Exception ignored) {
                    // closed at the end of the test
                }
            }, "stuck-writer");
            writer.setDaemon(true);
            writer.start();
            try (Load load = new Load(t.port("echo"), 2)) {
                await().atMost(RECOVERY).until(() -> load.ok() >= 10);
                load.close();
                assertIntact(load);
            }
        }
        awaitWorking(t.port("echo"), RECOVERY);
    }
}
