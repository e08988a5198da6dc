package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Thousands of short connections (connect, send, read the echo, close) through one tunnel all
 * succeed, and afterwards the process holds no more sockets than before: streams, public
 * connections and local connections are all closed, not just forgotten.
 */
@Timeout(90)
class ManyConnectionsTest {
    private static final int THREADS = 20;
    private static final int CYCLES_PER_THREAD = 100;
    private static final int BYTES = 4 * 1024;
    /** Slack for sockets the JVM or the tunnel may hold for reasons of their own. */
    private static final long FD_SLACK = 16;

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void twoThousandShortConnectionsAllSucceedAndLeaveNoSocketsBehind() throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = tunnel.builder().proxy("echo", echo.port()).start().port("echo");
        byte[] warmUp = Payloads.random(BYTES, -1);
        assertThat(PublicClient.roundTrip(port, warmUp)).isEqualTo(Payloads.summary(warmUp));
        long fdsBefore = openFileDescriptors();

        Queue<String> errors = new ConcurrentLinkedQueue<>();
        AtomicInteger succeeded = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "short-connections");
            t.setDaemon(true);
            return t;
        });
        tunnel.closeAfterTest(pool::shutdownNow);
        List<Callable<Void>> workers = new ArrayList<>();
        for (int w = 0; w < THREADS; w++) {
            int worker = w;
            workers.add(() -> {
                for (int i = 0; i < CYCLES_PER_THREAD; i++) {
                    byte[] data = Payloads.random(BYTES, worker * 1_000L + i);
                    try {
                        Payloads.Summary echoed = PublicClient.roundTrip(port, data);
                        if (echoed.equals(Payloads.summary(data))) {
                            succeeded.incrementAndGet();
                        } else {
                            errors.add("worker " + worker + " cycle " + i + ": echoed " + echoed);
                        }
                    } catch (Exception e) {
                        errors.add("worker " + worker + " cycle " + i + ": " + e);
                    }
                }
                return null;
            });
        }
        for (Future<Void> done : pool.invokeAll(workers, 80, TimeUnit.SECONDS)) {
            assertThat(done.isCancelled()).as("a worker did not finish in time").isFalse();
        }

        assertThat(errors).as("failed cycles").isEmpty();
        assertThat(succeeded.get()).isEqualTo(THREADS * CYCLES_PER_THREAD);
        await("sockets of finished connections are closed").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(openFileDescriptors()).isLessThanOrEqualTo(fdsBefore + FD_SLACK));
    }

    /**
     * Hundreds of connections opened at once reach the client in a few reads, more OPEN frames
     * than it connects per event-loop turn (the rest wait their turn); every one still gets
     * through, and those the public side aborts while they wait never leave a socket behind.
     */
    @Test
    void aBurstOpenedAtOnceAllGetsThroughAndAbortedOnesLeaveNothing() throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = tunnel.builder().proxy("echo", echo.port()).start().port("echo");
        byte[] warmUp = Payloads.random(BYTES, -2);
        assertThat(PublicClient.roundTrip(port, warmUp)).isEqualTo(Payloads.summary(warmUp));
        long fdsBefore = openFileDescriptors();

        int burst = 600;
        List<java.net.Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < burst; i++) {
                java.net.Socket socket = new java.net.Socket("127.0.0.1", port);
                socket.setSoTimeout(20_000);
                sockets.add(socket);
            }
            for (int i = 0; i < burst; i++) {
                java.net.Socket socket = sockets.get(i);
                if (i % 3 == 0) {
                    socket.setSoLinger(true, 0); // an abort: the stream is reset, maybe while it waits to connect
                    socket.close();
                } else {
                    socket.getOutputStream().write(Payloads.random(1024, i));
                }
            }
            for (int i = 0; i < burst; i++) {
                if (i % 3 != 0) {
                    byte[] back = sockets.get(i).getInputStream().readNBytes(1024);
                    assertThat(back).as("connection %d", i).isEqualTo(Payloads.random(1024, i));
                }
            }
        } finally {
            for (java.net.Socket socket : sockets) {
                socket.close();
            }
        }
        await("sockets of the burst are closed").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(openFileDescriptors()).isLessThanOrEqualTo(fdsBefore + FD_SLACK));
    }

    private static long openFileDescriptors() {
        return ((UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getOpenFileDescriptorCount();
    }
}
