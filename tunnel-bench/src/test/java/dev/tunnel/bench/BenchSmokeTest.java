package dev.tunnel.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The harness works: the long-connection load runs through a real server and client (TLS,
 * mux) whose link goes through the link emulator, loses nothing, and prints what the bench
 * script parses. A small-scale stand-in for {@code bench/compare.sh --quick} that needs no apt.
 */
class BenchSmokeTest {
    private static final InetSocketAddress ANY = new InetSocketAddress("127.0.0.1", 0);

    @Test
    @Timeout(60)
    void longConnectionsThroughEmulatedLinkLoseNothing(@TempDir Path dir) throws Exception {
        try (EchoServer echo = EchoServer.start(ANY, 1);
             TunnelServer server = TunnelServer.start(serverConfig());
             LinkEmulator link = LinkEmulator.start(ANY, new InetSocketAddress("127.0.0.1", server.port()),
                     LinkEmulator.Settings.delay(5), 1);
             TunnelClient client = TunnelClient.start(clientConfig(link.port(), echo.port()))) {
            client.firstLogin().get(10, TimeUnit.SECONDS);
            int publicPort = client.awaitRemotePort("echo", Duration.ofSeconds(10));

            LongConnLoad.Options options = new LongConnLoad.Options(
                    List.of(new InetSocketAddress("127.0.0.1", publicPort)), 200, 500, 3, 2, List.of(),
                    2000, 64, 5000, 0);
            LoadResult result = LongConnLoad.run(options, () -> { });

            assertThat(result.connectFailed()).isZero();
            assertThat(result.open()).isEqualTo(200);
            assertThat(result.sent()).isGreaterThanOrEqualTo(200L * 4);
            assertThat(result.lost()).isZero();
            assertThat(result.received()).isEqualTo(result.sent());
            assertThat(result.duplicated()).isZero();
            assertThat(result.outOfOrder()).isZero();
            // Two link crossings of 5 ms each way at least.
            assertThat(result.rttMillis(50)).isGreaterThanOrEqualTo(10.0);
            assertThat(result.report()).contains("lost 0").contains("RESULT connections=200");

            Path file = dir.resolve("part.txt");
            result.write(file);
            LoadResult merged = LoadResult.merge(List.of(LoadResult.read(file), LoadResult.read(file)));
            assertThat(merged.sent()).isEqualTo(2 * result.sent());
            assertThat(merged.stats().rtt().getTotalCount()).isEqualTo(2 * result.stats().rtt().getTotalCount());
            assertThat(merged.rttMillis(99)).isEqualTo(result.rttMillis(99));
            assertThat(Files.readString(file)).startsWith("counters ");
        }
    }

    @Test
    @Timeout(30)
    void resetFaultEndsEveryRelayedConnection() throws Exception {
        try (EchoServer echo = EchoServer.start(ANY, 1);
             LinkEmulator link = LinkEmulator.start(ANY, new InetSocketAddress("127.0.0.1", echo.port()),
                     LinkEmulator.Settings.delay(1), 1);
             java.net.Socket socket = new java.net.Socket("127.0.0.1", link.port())) {
            socket.setSoTimeout(5000);
            socket.getOutputStream().write(new byte[] {1, 2, 3});
            byte[] back = socket.getInputStream().readNBytes(3);
            assertThat(back).containsExactly(1, 2, 3);

            link.fault(LinkEmulator.Fault.RESET);
            int read;
            try {
                read = socket.getInputStream().read();
            } catch (java.net.SocketException e) {
                read = -2; // connection reset
            }
            // The relay closes with SO_LINGER 0; the JDK socket sees the end either as EOF or as a reset.
            assertThat(read).isIn(-1, -2);
        }
    }

    private static ServerConfig serverConfig() {
        ServerConfig config = new ServerConfig();
        config.bindAddr = "127.0.0.1";
        config.bindPort = 0;
        config.auth.token = "bench";
        return config;
    }

    private static ClientConfig clientConfig(int serverPort, int echoPort) {
        ClientConfig config = new ClientConfig();
        config.serverAddr = "127.0.0.1";
        config.serverPort = serverPort;
        config.auth.token = "bench";
        config.transport.tls.enable = true;
        ProxyConfig proxy = new ProxyConfig();
        proxy.name = "echo";
        proxy.localIP = "127.0.0.1";
        proxy.localPort = echoPort;
        proxy.remotePort = 0;
        config.proxies.add(proxy);
        return config;
    }
}
