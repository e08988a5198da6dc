package dev.tunnel.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.bench.SharedBottleneck.Discipline;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connections through a shared link share one rate and one queue: what a second connection
 * through a home uplink gets, and what it waits for. Real sockets on 127.0.0.1; the bounds are
 * generous (a busy machine slows the emulator down, it never speeds it up), and the delay
 * assertions are about orders of magnitude.
 */
@Timeout(60)
class SharedBottleneckTest {
    /** 2 MB/s. */
    private static final long RATE_BITS = 16_000_000;
    private static final long RATE_BYTES = RATE_BITS / 8;
    /** A full queue at the sparse tests' 0.5 MB/s: 500 ms. */
    private static final int QUEUE = 256 << 10;

    private final List<AutoCloseable> open = new ArrayList<>();
    private ServerSocket target;
    private LinkEmulator link;

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        if (link != null) {
            link.close();
        }
        target.close();
    }

    private void start(Discipline share, long rateBits) throws Exception {
        target = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        link = LinkEmulator.start(new InetSocketAddress("127.0.0.1", 0), new InetSocketAddress("127.0.0.1", target.getLocalPort()),
                new LinkEmulator.Settings(TimeUnit.MILLISECONDS.toNanos(1), rateBits, QUEUE, share), 1);
    }

    /** A connection through the link and its target end. */
    private Socket[] connect() throws IOException {
        Socket client = new Socket("127.0.0.1", link.port());
        Socket server = target.accept();
        client.setTcpNoDelay(true); // a sparse byte leaves at once, not behind an ACK
        server.setSoTimeout(10_000);
        open.add(client);
        open.add(server);
        return new Socket[] {client, server};
    }

    /**
     * Sends a counting byte pattern from {@code from} as fast as the link takes it, until
     * {@code seconds} have passed, and checks it arrives intact at {@code to}; returns the bytes
     * that arrived so far.
     */
    private AtomicLong bulk(Socket from, Socket to, long seconds) {
        AtomicLong received = new AtomicLong();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        Thread writer = new Thread(() -> {
            byte[] chunk = new byte[16 << 10];
            long sent = 0;
            try (OutputStream out = from.getOutputStream()) {
                while (System.nanoTime() - end < 0) {
                    for (int i = 0; i < chunk.length; i++) {
                        chunk[i] = (byte) ((sent + i) % 251);
                    }
                    out.write(chunk);
                    sent += chunk.length;
                }
            } catch (IOException e) {
                // closed by the test's end
            }
        }, "bulk-writer");
        Thread reader = new Thread(() -> {
            byte[] buf = new byte[16 << 10];
            try {
                InputStream in = to.getInputStream();
                for (int n; (n = in.read(buf)) > 0; ) {
                    long at = received.get();
                    for (int i = 0; i < n; i++) {
                        if (buf[i] != (byte) ((at + i) % 251)) {
                            received.set(Long.MIN_VALUE / 2); // out of order or corrupt: every assertion fails
                            return;
                        }
                    }
                    received.addAndGet(n);
                }
            } catch (IOException e) {
                // closed by the test's end
            }
        }, "bulk-reader");
        writer.setDaemon(true);
        reader.setDaemon(true);
        writer.start();
        reader.start();
        return received;
    }

    @Test
    void twoFlowsThroughAFifoLinkShareItsRate() throws Exception {
        start(Discipline.FIFO, RATE_BITS);
        Socket[] a = connect();
        Socket[] b = connect();
        AtomicLong ra = bulk(a[0], a[1], 6);
        AtomicLong rb = bulk(b[0], b[1], 6);
        awaitAtLeast(ra, 64 << 10);
        awaitAtLeast(rb, 64 << 10);
        long a0 = ra.get(), b0 = rb.get(), t0 = System.nanoTime();
        Thread.sleep(3000); // the measured window
        double seconds = (System.nanoTime() - t0) / 1e9;
        double rateA = (ra.get() - a0) / seconds, rateB = (rb.get() - b0) / seconds;

        assertThat(rateA + rateB).as("together, bytes/s").isBetween(0.6 * RATE_BYTES, 1.15 * RATE_BYTES);
        assertThat(rateA).as("flow a's share").isBetween(0.2 * (rateA + rateB), 0.8 * (rateA + rateB));
    }

    @Test
    void aSparseFlowWaitsBehindTheBulkFlowsQueueInFifo() throws Exception {
        start(Discipline.FIFO, RATE_BITS / 4);
        assertThat(sparseDelayMillisBesideABulkFlow()).as("median ms, the 256 KiB queue drains in 500 ms").isGreaterThan(300);
    }

    @Test
    void aSparseFlowSkipsTheBulkFlowsQueueWhenFair() throws Exception {
        start(Discipline.FAIR, RATE_BITS / 4);
        // one packet of the bulk flow is 3 ms; the rest of the bound is room for a busy machine
        assertThat(sparseDelayMillisBesideABulkFlow()).as("median ms").isLessThan(150);
    }

    /** A bulk flow keeps the queue full; the median time one byte of another flow takes through the link. */
    private long sparseDelayMillisBesideABulkFlow() throws Exception {
        Socket[] bulk = connect();
        Socket[] sparse = connect();
        AtomicLong received = bulk(bulk[0], bulk[1], 20);
        awaitAtLeast(received, QUEUE); // the writer is far faster than the link: the queue is full by now
        long[] millis = new long[7];
        for (int i = 0; i < millis.length; i++) {
            long t0 = System.nanoTime();
            sparse[0].getOutputStream().write(i);
            assertThat(sparse[1].getInputStream().read()).isEqualTo(i);
            millis[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        }
        assertThat(received.get()).as("bulk bytes intact").isPositive();
        Arrays.sort(millis);
        return millis[millis.length / 2];
    }

    private static void awaitAtLeast(AtomicLong counter, long bytes) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (counter.get() < bytes) {
            assertThat(System.nanoTime() - end).as("%d bytes within 10 s (%d arrived)", bytes, counter.get()).isNegative();
            Thread.sleep(10);
        }
    }
}
