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
 * A session is one connection, whatever the configuration: a transfer and an exchange through one
 * session arrive intact over it, also while other streams close and reset around them; a file
 * that still sets {@code transport.tcpMuxExpressLane} (a key of releases that opened a second
 * connection per session) loads, logs that the key is ignored, and keeps one connection; sessions
 * spread over the server's event loops.
 */
class OneConnectionTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private static long logged(String text) {
        return CapturedLogs.snapshot().stream().filter(line -> line.contains(text)).count();
    }

    private static String threadOf(String line) {
        return line.substring(line.indexOf('[') + 1, line.indexOf(']'));
    }

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(120)
    void aTransferAndAnExchangeThroughOneSessionArriveIntactOverOneConnection(boolean tls) throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        LinkEmulator link = tunnel.linkTo(server.port());
        int port = tunnel.builder().tls(tls).existingServer(server).client(c -> c.serverPort = link.port())
                .proxy("echo", echo.port()).start().port("echo");

        CompletableFuture<Void> transfer = CompletableFuture.runAsync(() -> echoBulk(port, 24 << 20, 7));
        exchange(port, 300);
        transfer.get(90, TimeUnit.SECONDS);
        assertThat(logged("session closed")).as("no session ended").isZero();
        assertThat(link.openSockets()).as("one connection, relayed by two sockets").isEqualTo(2);
    }

    @Test
    @Timeout(120)
    void streamsThatCloseAndResetAroundATransferAndAnExchangeLeaveTheSessionWhole() throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = tunnel.builder().proxy("echo", echo.port()).start().port("echo");

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
                echoBulk(port, 512 * 1024, 100 + i); // ends with FIN both ways
                continue;
            }
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.getOutputStream().write(burst); // what comes back is never read
                if (i % 3 == 0) {
                    s.setSoLinger(true, 0); // and the connection is reset
                }
            }
        }
        transfer.get(90, TimeUnit.SECONDS);
        chat.get(60, TimeUnit.SECONDS);
        exchange(port, 20);
        assertThat(logged("session closed")).as("no session ended").isZero();
    }

    @Test
    @Timeout(60)
    void sessionsSpreadOverTheServersEventLoops() throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.eventLoopThreads = 2;
        TunnelServer server = tunnel.startServer(config);
        for (int i = 1; i <= 4; i++) {
            tunnel.builder().existingServer(server).proxy("echo" + i, echo.port()).start();
        }
        Map<String, Long> sessionsByLoop = CapturedLogs.snapshot().stream()
                .filter(line -> line.contains(" logged in from host "))
                .collect(Collectors.groupingBy(OneConnectionTest::threadOf, Collectors.counting()));
        assertThat(sessionsByLoop).as("sessions per server event loop").hasSize(2).containsValues(2L);
    }

    @ParameterizedTest(name = "tcpMuxExpressLane={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(60)
    void theExpressLaneKeyOfEarlierReleasesIsIgnoredWithAWarningAndTheSessionIsOneConnection(boolean value)
            throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.tcpMuxExpressLane = value;
        TunnelServer server = tunnel.startServer(config);
        LinkEmulator link = tunnel.linkTo(server.port());
        int port = tunnel.builder().existingServer(server).client(c -> {
            c.serverPort = link.port();
            c.transport.tcpMuxExpressLane = value;
        }).proxy("echo", echo.port()).start().port("echo");
        echoBulk(port, 4 << 20, 8);
        exchange(port, 20);
        assertThat(link.openSockets()).isEqualTo(2);
        assertThat(logged("transport.tcpMuxExpressLane is ignored")).as("one warning per side").isEqualTo(2);
    }

    @Test
    @Timeout(90)
    void cuttingTheConnectionEndsTheSessionAndTheClientLogsInAgainOverOneConnection() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        LinkEmulator link = tunnel.linkTo(server.port());
        int port = tunnel.builder().existingServer(server).client(c -> c.serverPort = link.port())
                .proxy("echo", echo.port(), FreePorts.one()).start().port("echo");
        exchange(port, 5);
        link.fault(LinkEmulator.Fault.RESET);
        link.fault(LinkEmulator.Fault.NONE);
        await("the proxy works again").atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .untilAsserted(() -> exchange(port, 5));
        await("the old connection is gone, the new one is open").atMost(Duration.ofSeconds(30))
                .until(() -> link.openSockets() == 2);
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
