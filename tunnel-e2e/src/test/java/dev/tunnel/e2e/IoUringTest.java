package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tunnel.e2e.Payloads.Summary;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.protocol.transport.Transports;
import io.netty.channel.uring.IoUring;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Both sides on io_uring ({@code transport.ioUring = "on"}), TLS on, both modes: every byte of a
 * known pattern comes back, in order, through parallel connections (pool mode: each on its own
 * work connection) and through a run of connections that each need a replacement work connection
 * (a pool of one), whose first bytes arrive right behind {@code START_WORK_CONN}.
 *
 * <p>Skipped where io_uring does not load (an old kernel, or one that forbids it).
 */
@Timeout(90)
class IoUringTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @BeforeEach
    void ioUringLoads() {
        assumeTrue(IoUring.isAvailable(), () -> "io_uring unavailable: " + IoUring.unavailabilityCause());
    }

    /** The transport is chosen per process: the next test's tunnels pick their own, but helpers may not. */
    @AfterEach
    void backToTheDefault() {
        Transports.use("auto");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void parallelConnectionsEchoEveryByte(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = ioUring(mode).proxy("echo", echo.port()).start().port("echo");
        int connections = 8;
        ExecutorService threads = Executors.newFixedThreadPool(connections);
        try {
            List<Future<Summary>> answers = new ArrayList<>();
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                byte[] data = Payloads.random(2 * 1024 * 1024 + 1_000 * i, 100 + i);
                sent.add(data);
                answers.add(threads.submit(() -> PublicClient.roundTrip(port, data)));
            }
            for (int i = 0; i < connections; i++) {
                assertThat(answers.get(i).get()).as("connection %d", i).isEqualTo(Payloads.summary(sent.get(i)));
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void sequentialConnectionsEachOnAFreshWorkConnection(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = ioUring(mode).client(c -> {
            c.transport.ioUring = "on";
            c.transport.poolCount = 1;
        }).proxy("echo", echo.port()).start().port("echo");
        for (int i = 0; i < 40; i++) {
            byte[] data = Payloads.random(1 + i * 7_919, 200 + i);
            assertThat(PublicClient.roundTrip(port, data)).as("connection %d (%d bytes)", i, data.length)
                    .isEqualTo(Payloads.summary(data));
        }
    }

    private TunnelExtension.TunnelBuilder ioUring(Mode mode) {
        return tunnel.builder().mode(mode).tls(true)
                .server(c -> c.transport.ioUring = "on")
                .client(c -> c.transport.ioUring = "on");
    }
}
