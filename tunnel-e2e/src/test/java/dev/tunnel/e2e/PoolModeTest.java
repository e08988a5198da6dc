package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.e2e.TunnelExtension.Mode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Pool mode: each public connection on its own work connection, TLS or not, bytes intact. */
@Timeout(60)
class PoolModeTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    void parallelConnectionsEchoEveryByte(boolean tls) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = tunnel.builder().mode(Mode.POOL).tls(tls).proxy("echo", echo.port()).start().port("echo");
        ExecutorService threads = Executors.newFixedThreadPool(8);
        try {
            List<Future<Payloads.Summary>> answers = new ArrayList<>();
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                byte[] data = Payloads.random(2 * 1024 * 1024, i);
                sent.add(data);
                answers.add(threads.submit(() -> PublicClient.roundTrip(port, data)));
            }
            for (int i = 0; i < 8; i++) {
                assertThat(answers.get(i).get()).as("connection %d", i).isEqualTo(Payloads.summary(sent.get(i)));
            }
        } finally {
            threads.shutdownNow();
        }
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

    @Test
    void emptyPoolWaitsForAWorkConnection() throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = tunnel.builder().mode(Mode.POOL).client(c -> c.transport.poolCount = 0)
                .proxy("echo", echo.port()).start().port("echo");
        byte[] data = Payloads.random(100_000, 7);
        assertThat(PublicClient.roundTrip(port, data)).isEqualTo(Payloads.summary(data));
    }
}
