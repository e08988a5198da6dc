package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.bench.LinkEmulator;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.io.DataInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The express lane with a real server and client ({@code transport.tcpMuxExpressLane}, on by
 * default on both sides): after login the client opens the session's second connection, which
 * the server runs on one of its bulk loops; a transfer moves there, on both sides, with its
 * sockets, while an exchange through the same session stays on the session's loop, and both
 * arrive intact, also while other streams move, close and reset around them; either side can turn
 * it off (then the session is one connection, as with an older peer), and a reconnection joins
 * the lane again.
 */
class ExpressLaneTest {
    private static final String JOINED = "as its bulk lane";
    private static final String MOVED = "moved to the bulk lane";

    /** Logs each stream's landing on a bulk owner (at DEBUG), for the tests to see where it ran. */
    private static void logMoves() {
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(dev.tunnel.protocol.mux.MuxSession.class))
                .setLevel(ch.qos.logback.classic.Level.DEBUG);
    }

    @org.junit.jupiter.api.AfterEach
    void quietMoves() {
        ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(dev.tunnel.protocol.mux.MuxSession.class))
                .setLevel(null);
    }

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private static long logged(String text) {
        return CapturedLogs.snapshot().stream().filter(line -> line.contains(text)).count();
    }

    /** The thread that logged the first line containing {@code text} (the pattern's {@code [%thread]}). */
    private static String thread(String text) {
        return threadOf(CapturedLogs.snapshot().stream().filter(l -> l.contains(text)).findFirst().orElseThrow());
    }

    private static String threadOf(String line) {
        return line.substring(line.indexOf('[') + 1, line.indexOf(']'));
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(120)
    void aTransferAndAnExchangeThroughOneSessionArriveIntactOverTwoConnections(boolean tls) throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.eventLoopThreads = 2; // the lane is accepted on the loop after its session's
        TunnelServer server = tunnel.startServer(config);
        LinkEmulator link = tunnel.linkTo(server.port());
        logMoves();
        int port = tunnel.builder().tls(tls).existingServer(server).client(c -> c.serverPort = link.port())
                .proxy("echo", echo.port()).start().port("echo");
        await("the bulk lane joined").atMost(TunnelExtension.LOGIN_TIMEOUT).until(() -> logged(JOINED) == 1);
        await("two connections, each relayed by two sockets").atMost(TunnelExtension.LOGIN_TIMEOUT)
                .until(() -> link.openSockets() == 4);
        assertThat(thread(JOINED)).as("the server's lane runs on a bulk loop").startsWith("tunnel-bulk");

        assertThat(transferBesideAnExchange(port, 24 << 20, 7, 300))
                .as("landed on the server's bulk loop and on another client loop than the session's")
                .anyMatch(t -> t.startsWith("tunnel-bulk"))
                .anyMatch(t -> t.startsWith("tunnel-client") && !t.equals(clientSessionThread()));
    }

    @Test
    @Timeout(120)
    void streamsThatMoveCloseAndResetAroundATransferAndAnExchangeLeaveTheSessionWhole() throws Exception {
        int port = echoThroughJoinedLanes(client -> { });

        CompletableFuture<Void> transfer = CompletableFuture.runAsync(() -> echoBulk(port, 16 << 20, 21));
        CompletableFuture<Void> chat = CompletableFuture.runAsync(() -> {
            try {
                exchange(port, 400);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        byte[] burst = new byte[192 * 1024];
        for (int i = 0; i < 30; i++) {
            if (i % 3 == 2) {
                echoBulk(port, 512 * 1024, 100 + i); // moves, then ends with FIN both ways
                continue;
            }
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.getOutputStream().write(burst); // turns bulk; what comes back is never read
                if (i % 3 == 0) {
                    s.setSoLinger(true, 0); // and the connection is reset, in the middle of its move or after
                }
            }
        }
        transfer.get(90, TimeUnit.SECONDS);
        chat.get(60, TimeUnit.SECONDS);
        exchange(port, 20);
        assertThat(logged("session closed")).as("no session ended").isZero();
        assertThat(logged(MOVED)).as("streams moved, on both sides").isGreaterThanOrEqualTo(4);
    }

    @Test
    @Timeout(120)
    void aClientWithOneEventLoopMovesItsTransfersOntoItsBulkLaneOnThatLoop() throws Exception {
        int port = echoThroughJoinedLanes(client -> client.transport.eventLoopThreads = 1);

        assertThat(transferBesideAnExchange(port, 16 << 20, 31, 200))
                .as("the client's side landed on its one loop, the server's on a bulk loop")
                .anyMatch(t -> t.equals(clientSessionThread()))
                .anyMatch(t -> t.startsWith("tunnel-bulk"));
    }

    /**
     * A server on two loops with moves logged, a client set up by {@code client} with an echo
     * proxy, its bulk lane joined: the proxy's public port.
     */
    private int echoThroughJoinedLanes(java.util.function.Consumer<dev.tunnel.client.config.ClientConfig> client)
            throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.eventLoopThreads = 2;
        TunnelServer server = tunnel.startServer(config);
        logMoves();
        int port = tunnel.builder().existingServer(server).client(client).proxy("echo", echo.port()).start().port("echo");
        await("the bulk lane joined").atMost(TunnelExtension.LOGIN_TIMEOUT).until(() -> logged(JOINED) == 1);
        return port;
    }

    /**
     * An echoed transfer of {@code size} bytes beside {@code rounds} exchanges through {@code port}:
     * both arrive whole, no session ends, and the transfer alone moves, once on each side. The
     * threads its two landings ran on.
     */
    private List<String> transferBesideAnExchange(int port, int size, long seed, int rounds) throws Exception {
        CompletableFuture<Void> transfer = CompletableFuture.runAsync(() -> echoBulk(port, size, seed));
        exchange(port, rounds);
        transfer.get(90, TimeUnit.SECONDS);
        assertThat(logged("session closed")).as("no session ended").isZero();
        List<String> moves = lines(MOVED);
        assertThat(moves).as("the transfer moved on both sides").hasSize(2);
        return moves.stream().map(ExpressLaneTest::threadOf).toList();
    }

    /** Lines logged that contain {@code text}. */
    private static List<String> lines(String text) {
        return CapturedLogs.snapshot().stream().filter(l -> l.contains(text)).toList();
    }

    /** The client loop its session runs on: the one that logged the login's outcome. */
    private static String clientSessionThread() {
        return CapturedLogs.snapshot().stream().filter(l -> l.contains("logged in to server"))
                .map(ExpressLaneTest::threadOf).findFirst().orElse("none");
    }

    @Test
    @Timeout(60)
    void sessionsSpreadOverTheServersEventLoopsThoughEachClientMakesTwoConnections() throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.eventLoopThreads = 2; // accepts alternate: every control connection would land on one loop
        TunnelServer server = tunnel.startServer(config);
        for (int i = 1; i <= 4; i++) {
            tunnel.builder().existingServer(server).proxy("echo" + i, echo.port()).start();
            long joined = i;
            await("lane " + i + " joined").atMost(TunnelExtension.LOGIN_TIMEOUT).until(() -> logged(JOINED) == joined);
        }
        Map<String, Long> sessionsByLoop = CapturedLogs.snapshot().stream()
                .filter(line -> line.contains("logged in with the"))
                .collect(Collectors.groupingBy(ExpressLaneTest::threadOf, Collectors.counting()));
        assertThat(sessionsByLoop).as("sessions per server event loop").hasSize(2).containsValues(2L);
    }

    @Test
    @Timeout(60)
    void withTheKeyOffOnTheClientTheSessionIsOneConnection() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        LinkEmulator link = tunnel.linkTo(server.port());
        int port = tunnel.builder().existingServer(server).client(c -> {
            c.serverPort = link.port();
            c.transport.tcpMuxExpressLane = false;
        }).proxy("echo", echo.port()).start().port("echo");
        echoBulk(port, 4 << 20, 8);
        exchange(port, 20);
        assertThat(link.openSockets()).isEqualTo(2);
        assertThat(logged(JOINED)).isZero();
    }

    @Test
    @Timeout(60)
    void aServerThatDoesNotOfferTheLaneGetsOneConnection() throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.tcpMuxExpressLane = false;
        TunnelServer server = tunnel.startServer(config);
        LinkEmulator link = tunnel.linkTo(server.port());
        int port = tunnel.builder().existingServer(server).client(c -> c.serverPort = link.port())
                .proxy("echo", echo.port()).start().port("echo");
        echoBulk(port, 4 << 20, 9);
        exchange(port, 20);
        assertThat(link.openSockets()).isEqualTo(2);
        assertThat(logged(JOINED)).isZero();
    }

    @Test
    @Timeout(90)
    void cuttingTheConnectionsEndsTheSessionAndTheReconnectionJoinsBothAgain() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        LinkEmulator link = tunnel.linkTo(server.port());
        int port = tunnel.builder().existingServer(server).client(c -> c.serverPort = link.port())
                .proxy("echo", echo.port(), FreePorts.one()).start().port("echo");
        await("the bulk lane joined").atMost(TunnelExtension.LOGIN_TIMEOUT).until(() -> logged(JOINED) == 1);
        link.fault(LinkEmulator.Fault.RESET);
        link.fault(LinkEmulator.Fault.NONE);
        await("the client logged in again and joined its lane").atMost(Duration.ofSeconds(30))
                .until(() -> logged(JOINED) == 2);
        await("the proxy works again").atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .untilAsserted(() -> exchange(port, 5));
        await("the old connections are gone, the new two are open").atMost(Duration.ofSeconds(30))
                .until(() -> link.openSockets() == 4);
    }

    /** Sends {@code size} random bytes through the echo proxy and checks that the same bytes come back. */
    private static void echoBulk(int port, int size, long seed) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(60_000);
            MessageDigest sent = MessageDigest.getInstance("SHA-256");
            MessageDigest back = MessageDigest.getInstance("SHA-256");
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream out = s.getOutputStream();
                    SplittableRandom random = new SplittableRandom(seed);
                    byte[] chunk = new byte[64 * 1024];
                    for (int left = size; left > 0; left -= chunk.length) {
                        int n = Math.min(left, chunk.length);
                        for (int i = 0; i < n; i++) {
                            chunk[i] = (byte) random.nextInt();
                        }
                        sent.update(chunk, 0, n);
                        out.write(chunk, 0, n);
                    }
                    out.flush();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            InputStream in = s.getInputStream();
            byte[] buf = new byte[64 * 1024];
            long received = 0;
            while (received < size) {
                int n = in.read(buf);
                assertThat(n).as("bytes echoed before the end").isPositive();
                back.update(buf, 0, n);
                received += n;
            }
            writer.get(60, TimeUnit.SECONDS);
            assertThat(received).isEqualTo(size);
            assertThat(back.digest()).as("SHA-256 of what came back").isEqualTo(sent.digest());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code rounds} request/answer exchanges of 100 bytes on one connection. */
    private static void exchange(int port, int rounds) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(30_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] request = new byte[100];
            byte[] answer = new byte[100];
            for (int i = 0; i < rounds; i++) {
                Arrays.fill(request, (byte) i);
                s.getOutputStream().write(request);
                in.readFully(answer);
                assertThat(answer).isEqualTo(request);
            }
        }
    }
}
