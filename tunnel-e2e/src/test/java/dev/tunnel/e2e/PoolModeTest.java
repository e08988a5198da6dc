package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.awaitility.Awaitility.await;

import dev.tunnel.e2e.TunnelExtension.Mode;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Pool mode: each public connection on its own work connection, TLS or not, bytes intact, TLS sessions resumed. */
@Timeout(60)
class PoolModeTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    void parallelConnectionsEchoEveryByte(boolean tls) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = tunnel.builder().mode(Mode.POOL).tls(tls).proxy("echo", echo.port()).start().port("echo");
        PublicClient.roundTripsInParallel(port, 8, i -> Payloads.random(2 * 1024 * 1024, i));
    }

    @Test
    void manySequentialConnectionsReuseAndRefillThePool() throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = tunnel.builder().mode(Mode.POOL).client(c -> c.transport.poolCount = 1)
                .proxy("echo", echo.port()).start().port("echo");
        for (int i = 0; i < 50; i++) {
            byte[] data = Payloads.random(1000 + i, i);
            assertThat(PublicClient.roundTrip(port, data)).as("connection %d", i).isEqualTo(Payloads.summary(data));
        }
    }

    /**
     * Each replacement work connection resumes a TLS session of an earlier one (no certificate,
     * no signature) and still proves the login's certificate binding: both sides count the
     * resumed handshakes and say so when the session ends.
     */
    @Test
    void replacementWorkConnectionsResumeTheirTlsSession() throws Exception {
        TunnelExtension.Tunnel t = tlsPoolOfOne();
        int port = t.port("echo");
        int connections = 20;
        for (int i = 0; i < connections; i++) {
            byte[] data = Payloads.random(1000 + i, i);
            assertThat(PublicClient.roundTrip(port, data)).as("connection %d", i).isEqualTo(Payloads.summary(data));
        }
        t.client().close();
        // The first work connection makes a full handshake (the control connection's tickets
        // arrive after it was opened); the 20 replacements resume, but one or two may race the
        // tickets of the connection before them and make a full handshake.
        for (String side : List.of("WorkConnPool", "WorkConnector")) {
            Matcher counts = await(side + "'s count of resumed work connections").atMost(Duration.ofSeconds(10))
                    .until(() -> workConnCounts(side), m -> m != null);
            int resumed = Integer.parseInt(counts.group(1));
            int total = Integer.parseInt(counts.group(2));
            assertThat(total).as(side + ": handshakes").isGreaterThanOrEqualTo(connections);
            assertThat(resumed).as(side + ": resumed of " + total).isGreaterThanOrEqualTo(connections - 3);
        }
    }

    /**
     * Replacement work connections offer X25519 alone and expect to resume; a burst that finds
     * too few session tickets makes some of them full handshakes, which the client gives up and
     * makes again with the default groups. Every public connection is still served, its bytes
     * intact.
     */
    @Test
    void aBurstBeyondTheSessionTicketsAtHandIsServedOnConnectionsMadeAgain() throws Exception {
        TunnelExtension.Tunnel t = tlsPoolOfOne();
        int connections = 30;
        PublicClient.roundTripsInParallel(t.port("echo"), connections, i -> Payloads.random(10_000 + i, i));
        t.client().close();
        Matcher server = await("the server's count of work connections").atMost(Duration.ofSeconds(10))
                .until(() -> workConnCounts("WorkConnPool"), m -> m != null);
        assertThat(server.group(3)).as("the server never sees an abandoned handshake's connection").isNull();
        assertThat(Integer.parseInt(server.group(2))).isGreaterThanOrEqualTo(connections);
        Matcher client = await("the client's count of work connections").atMost(Duration.ofSeconds(10))
                .until(() -> workConnCounts("WorkConnector"), m -> m != null);
        // whether the burst outruns the tickets is a race: most runs make some handshakes again,
        // a run whose tickets kept up has nothing more to check
        assumeTrue(client.group(3) != null, "the session tickets kept up with the burst: none made again");
        assertThat(Integer.parseInt(client.group(3))).as("handshakes made again with the default groups").isPositive();
    }

    /** A tunnel in pool mode with TLS and {@code poolCount = 1}, carrying proxy "echo" to an echo server. */
    private TunnelExtension.Tunnel tlsPoolOfOne() throws Exception {
        return tunnel.builder().mode(Mode.POOL).tls(true).client(c -> c.transport.poolCount = 1)
                .proxy("echo", tunnel.echoServer().port()).start();
    }

    private static Matcher workConnCounts(String logger) {
        Pattern line = Pattern.compile(logger + " - .* ended: work connections: (\\d+) of (\\d+) TLS handshakes resumed"
                + "(?:, (\\d+) made again with the default groups)?");
        for (String l : CapturedLogs.snapshot()) {
            Matcher m = line.matcher(l);
            if (m.find()) {
                return m;
            }
        }
        return null;
    }

    @Test
    void emptyPoolWaitsForAWorkConnection() throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = tunnel.builder().mode(Mode.POOL).client(c -> c.transport.poolCount = 0)
                .proxy("echo", echo.port()).start().port("echo");
        byte[] data = Payloads.random(100_000, 7);
        assertThat(PublicClient.roundTrip(port, data)).isEqualTo(Payloads.summary(data));
    }
}
