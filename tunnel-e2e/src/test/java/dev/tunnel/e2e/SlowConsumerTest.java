package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A local app that accepts and never reads must stop its own public writer, and no one else:
 * the writer blocks once the stream window and the kernel buffers on the way are full, the
 * tunnel does not buffer the rest in memory, and another connection on the same tunnel still
 * echoes megabytes intact meanwhile.
 */
@Timeout(60)
class SlowConsumerTest {
    private static final long MiB = 1024 * 1024;
    private static final long ATTEMPTED = 64 * MiB;
    /** Stream window (256 KiB) plus socket buffers on two loopback connections stay well under this. */
    private static final long MAX_IN_FLIGHT = 24 * MiB;
    private static final long MAX_DIRECT_MEMORY = 64 * MiB;

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void stalledLocalAppBlocksOnlyItsWriterAndMemoryStaysBounded() throws Exception {
        CountDownLatch sinkAccepted = new CountDownLatch(1);
        LocalApp sink = tunnel.localApp(socket -> sinkAccepted.countDown()); // keeps the socket, never reads
        EchoServer echo = tunnel.echoServer();
        TunnelExtension.Tunnel t = tunnel.builder()
                .proxy("sink", sink.port())
                .proxy("echo", echo.port())
                .start();

        Socket stalled = tunnel.closeAfterTest(new Socket("127.0.0.1", t.port("sink")));
        AtomicLong written = new AtomicLong();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> writeUntilBlocked(stalled, written),
                r -> daemon(r, "stalled-writer").start());
        assertThat(sinkAccepted.await(10, TimeUnit.SECONDS)).as("the sink app got the connection").isTrue();

        AtomicLong previous = new AtomicLong(-1);
        await("the writer stops making progress").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    long now = written.get();
                    return now > 0 && now == previous.getAndSet(now);
                });
        assertThat(written.get()).as("bytes accepted from the writer of a stalled app").isLessThan(MAX_IN_FLIGHT);

        AtomicLong maxDirect = new AtomicLong(DirectMemory.used());
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "direct-memory"));
        tunnel.closeAfterTest(sampler::shutdownNow);
        sampler.scheduleAtFixedRate(() -> maxDirect.accumulateAndGet(DirectMemory.used(), Math::max),
                0, 20, TimeUnit.MILLISECONDS);

        byte[] data = Payloads.random((int) (8 * MiB), 42);
        assertThat(PublicClient.roundTrip(t.port("echo"), data))
                .as("8 MiB echoed on the same tunnel while the other stream is stalled")
                .isEqualTo(Payloads.summary(data));

        sampler.shutdown();
        assertThat(sampler.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
        assertThat(writer).as("the stalled writer cannot complete").isNotDone();
        assertThat(written.get()).as("bytes accepted from the writer of a stalled app").isLessThan(MAX_IN_FLIGHT);
        assertThat(maxDirect.get()).as("Netty direct memory in use during the stall").isLessThan(MAX_DIRECT_MEMORY);
        assertThat(sink.errors()).isEmpty();
    }

    /** Writes up to 64 MiB; blocks when the tunnel stops taking bytes; ends when the test closes the socket. */
    private static void writeUntilBlocked(Socket socket, AtomicLong written) {
        byte[] chunk = Payloads.random(64 * 1024, 7);
        try {
            OutputStream out = socket.getOutputStream();
            while (written.get() < ATTEMPTED) {
                out.write(chunk);
                written.addAndGet(chunk.length);
            }
        } catch (Exception e) {
            // the test closed the socket
        }
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }
}
