package dev.tunnel.e2e;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Public connections echoing random bytes, over and over, from a few threads, while a test
 * breaks things. A connection may fail; what must never happen is a byte coming back that was
 * not the byte sent at that position (corruption, or bytes of another stream): every reply is
 * checked to be a prefix of what was sent, and a full reply has the same SHA-256.
 */
final class Load implements AutoCloseable {
    private static final int SO_TIMEOUT_MILLIS = 5_000;

    private final int port;
    private final ExecutorService threads;
    private final AtomicInteger ok = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final List<String> corrupt = new CopyOnWriteArrayList<>();
    private volatile boolean running = true;

    Load(int port, int connections) {
        this.port = port;
        this.threads = Executors.newFixedThreadPool(connections, r -> {
            Thread t = new Thread(r, "load");
            t.setDaemon(true);
            return t;
        });
        for (int i = 0; i < connections; i++) {
            int worker = i;
            threads.execute(() -> run(worker));
        }
    }

    private void run(int worker) {
        long seed = worker * 1_000_000L;
        while (running) {
            byte[] data = Payloads.random(16 * 1024 + (int) (seed % 7) * 48 * 1024, seed++);
            try {
                byte[] back = exchange(port, data);
                check(data, back);
                if (back.length == data.length) {
                    ok.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                }
            } catch (Exception e) {
                failed.incrementAndGet();
            }
        }
    }

    private void check(byte[] sent, byte[] back) {
        int n = Math.min(sent.length, back.length);
        int mismatch = Arrays.mismatch(sent, 0, n, back, 0, n);
        if (back.length > sent.length || mismatch >= 0) {
            corrupt.add("sent " + sent.length + " bytes, got " + back.length + ", first wrong byte at " + mismatch);
        } else if (back.length == sent.length && !Payloads.sha256(sent).equals(Payloads.sha256(back))) {
            corrupt.add("same length, different SHA-256");
        }
    }

    /** Sends {@code data}, half-closes and reads the reply to EOF (a second thread writes). */
    static byte[] exchange(int port, byte[] data) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(SO_TIMEOUT_MILLIS);
            Thread writer = new Thread(() -> {
                try {
                    s.getOutputStream().write(data);
                    s.shutdownOutput();
                } catch (Exception ignored) {
                    // the reader sees the failure
                }
            }, "load-writer");
            writer.setDaemon(true);
            writer.start();
            ByteArrayOutputStream back = new ByteArrayOutputStream(data.length);
            InputStream in = s.getInputStream();
            try {
                in.transferTo(back);
            } catch (Exception e) {
                // a failed connection: what came back so far is still checked
            }
            writer.join(SO_TIMEOUT_MILLIS);
            return back.toByteArray();
        }
    }

    int ok() {
        return ok.get();
    }

    int failed() {
        return failed.get();
    }

    List<String> corrupt() {
        return corrupt;
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        threads.shutdown();
        threads.awaitTermination(2 * SO_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        threads.shutdownNow();
    }
}
