package dev.tunnel.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * New connections at a fixed rate, one HTTP/1.0 request on each ({@code GET / } with a Host
 * header; the tcp proxy passes it through unchanged), for a bounded time. Prints a summary line,
 * then one line per failed request with the epoch millisecond it failed (and, last, when it was
 * started), so a caller can place failures relative to an event such as a {@code kill -9}.
 *
 * <pre>java -cp tunnel-bench.jar dev.tunnel.bench.NewConnLoad --target 127.0.0.1:18000 --rate 1000 --seconds 8 --host app.example.com</pre>
 *
 * <p>The summary gives the rate offered (requests over the time it took to start them all) apart
 * from the time until the last one was answered or failed (a 3 s read timeout at the end would
 * otherwise read as a lower rate), and how many started more than {@value #LATE_MS} ms after
 * their due time: those say the driver, not the target, held the rate back.
 *
 * <p>Threads: one thread paces the starts; a bounded pool ({@code --threads}, default 256) runs
 * the blocking requests. Requests that cannot start on time because every thread is busy (or
 * the pacer got no CPU) are started late, and counted as late.
 */
public final class NewConnLoad {
    static final long LATE_MS = 100;

    private NewConnLoad() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        InetSocketAddress target = Args.address("target", args.required("target"));
        long rate = args.number("rate", 1000, 1, 100_000);
        long seconds = args.number("seconds", 8, 1, 600);
        int threads = (int) args.number("threads", 256, 1, 2000);
        byte[] request = ("GET " + args.string("path", "/") + " HTTP/1.0\r\nHost: " + args.string("host", "app.example.com") + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicLong ok = new AtomicLong();
        AtomicLong late = new AtomicLong();
        long total = rate * seconds;
        long start = System.nanoTime();
        long startMs = System.currentTimeMillis();
        for (long i = 0; i < total; i++) {
            long due = start + i * 1_000_000_000L / rate;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            pool.execute(() -> {
                if (System.nanoTime() - due > TimeUnit.MILLISECONDS.toNanos(LATE_MS)) {
                    late.incrementAndGet();
                }
                long t = System.currentTimeMillis();
                String why = request(target, request);
                if (why == null) {
                    ok.incrementAndGet();
                } else {
                    failures.add("FAIL " + System.currentTimeMillis() + " " + why + " started:" + t);
                }
            });
        }
        double sending = (System.currentTimeMillis() - startMs) / 1000.0;
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);
        double took = (System.currentTimeMillis() - startMs) / 1000.0;
        System.out.printf("start %d: sent %d in %.1f s (%.0f/s offered, %d started over %d ms late), all done"
                + " after %.1f s, ok %d, failed %d%n", startMs, total, sending, total / sending, late.get(), LATE_MS,
                took, ok.get(), failures.size());
        failures.stream().sorted().forEach(System.out::println);
        System.exit(0);
    }

    /** One request on a new connection: null when the answer is a 200, else why not. */
    private static String request(InetSocketAddress target, byte[] request) {
        try (Socket s = new Socket()) {
            s.connect(target, 2000);
            s.setSoTimeout(3000);
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            InputStream in = s.getInputStream();
            byte[] head = in.readNBytes(12);
            String status = new String(head, StandardCharsets.US_ASCII);
            in.transferTo(OutputStream.nullOutputStream());
            return status.startsWith("HTTP/1.") && status.endsWith(" 200") ? null
                    : "answer:" + status.replaceAll("\\s", "_");
        } catch (IOException e) {
            return e.getClass().getSimpleName() + ":" + String.valueOf(e.getMessage()).replaceAll("\\s", "_");
        }
    }
}
