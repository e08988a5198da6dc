package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fifty clients log in at once, each from an address of its own (127.0.0.2-51), to a server
 * whose {@code transport.handshakeRate} is 10 a second: every one is paced in and none gives
 * up, while a client already connected from 127.0.0.1 keeps answering quickly through its proxy.
 */
@Timeout(90)
class LoginStormTest {
    private static final int CLIENTS = 50;
    private static final int RATE = 10;

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void aStormOfLoginsIsPacedNotRefusedAndAClientAlreadyBackKeepsItsLatency() throws Exception {
        assumeTrue(canBind("127.0.0.51"), "127.0.0.2-51 cannot be bound here");
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel back = tunnel.builder().server(c -> c.transport.handshakeRate = RATE)
                .proxy("echo", echo.port()).start();
        TunnelServer server = back.server();
        int port = back.port("echo");

        try (Socket probe = new Socket("127.0.0.1", port)) {
            probe.setSoTimeout(10_000);
            probe.setTcpNoDelay(true);
            List<Long> idle = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                idle.add(roundTripNanos(probe));
            }
            long started = System.nanoTime();
            List<CompletableFuture<Void>> logins = new java.util.concurrent.CopyOnWriteArrayList<>();
            CompletableFuture<Void> startedAll = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < CLIENTS; i++) {
                    try {
                        logins.add(tunnel.startClient(stormClient(server, i)).firstLogin());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            });
            List<Long> during = new ArrayList<>();
            while (!(startedAll.isDone() && logins.stream().allMatch(CompletableFuture::isDone))
                    && System.nanoTime() - started < TimeUnit.SECONDS.toNanos(45)) {
                during.add(roundTripNanos(probe)); // one round trip at a time paces this loop
            }
            startedAll.get(10, TimeUnit.SECONDS);
            CompletableFuture.allOf(logins.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            long idleMedian = median(idle);
            long stormMedian = median(during);
            System.out.printf("login storm: %d clients at %d handshakes/s logged in within %d ms; established client:"
                    + " median round trip idle %.1f ms, during the storm %.1f ms (%d probes)%n", CLIENTS, RATE,
                    tookMillis, idleMedian / 1e6, stormMedian / 1e6, during.size());
            assertThat(logins).hasSize(CLIENTS).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
            assertThat(tookMillis).as("paced: the burst of %d, then %d a second", RATE, RATE)
                    .isGreaterThanOrEqualTo(TimeUnit.SECONDS.toMillis((CLIENTS - RATE) / RATE) - 500);
            assertThat(during).as("the established client was probed during the storm").hasSizeGreaterThan(5);
            assertThat(stormMedian).as("the established client's median round trip during the storm")
                    .isLessThan(4 * idleMedian + TimeUnit.MILLISECONDS.toNanos(250));
        }
        assertThat(CapturedLogs.snapshot()).noneMatch(line -> line.contains("exceed transport.handshakeRate"));
    }

    private static ClientConfig stormClient(TunnelServer server, int i) {
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.transport.connectServerLocalIP = "127.0.0." + (2 + i);
        config.proxies.add(TunnelExtension.proxyConfig("storm" + i, 9, 0));
        return config;
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    /** One byte there and back through the tunnel. */
    private static long roundTripNanos(Socket probe) throws IOException {
        OutputStream out = probe.getOutputStream();
        InputStream in = probe.getInputStream();
        long start = System.nanoTime();
        out.write(42);
        out.flush();
        assertThat(in.read()).isEqualTo(42);
        return System.nanoTime() - start;
    }

    private static boolean canBind(String address) {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName(address), 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
