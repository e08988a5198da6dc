package dev.tunnel.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * Time to first byte of a new connection: connect, send one HTTP request, wait for the first
 * byte of the answer; repeated one connection at a time, prints the median.
 *
 * <pre>java -cp tunnel-bench.jar dev.tunnel.bench.FirstByte --target 127.0.0.1:6080 [--samples 20] [--path /ping]</pre>
 *
 * Two unrecorded connections go first (class loading, the server's first accept).
 */
public final class FirstByte {
    private FirstByte() {
    }

    /** Milliseconds from connect() to the first byte read, one per sample, sorted. */
    public static double[] measure(InetSocketAddress target, int samples, String path) throws IOException, InterruptedException {
        byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        double[] out = new double[samples];
        for (int i = -2; i < samples; i++) {
            long start = System.nanoTime();
            try (Socket s = new Socket()) {
                s.setTcpNoDelay(true);
                s.setSoTimeout(10_000);
                s.connect(target, 10_000);
                s.getOutputStream().write(request);
                InputStream in = s.getInputStream();
                if (in.read() < 0) {
                    throw new IOException(target + " closed the connection without answering");
                }
                long elapsed = System.nanoTime() - start;
                if (i >= 0) {
                    out[i] = elapsed / 1e6;
                }
                in.readAllBytes();
            }
            Thread.sleep(20);
        }
        Arrays.sort(out);
        return out;
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        InetSocketAddress target = Args.address("target", args.required("target"));
        int samples = (int) args.number("samples", 20, 1, 10_000);
        double[] ms = measure(target, samples, args.string("path", "/ping"));
        double median = samples % 2 == 1 ? ms[samples / 2] : (ms[samples / 2 - 1] + ms[samples / 2]) / 2;
        System.out.printf(Locale.ROOT, "first byte of a new connection, %d samples: min %.2f ms, median %.2f ms, max %.2f ms%n",
                samples, ms[0], median, ms[samples - 1]);
        System.out.printf(Locale.ROOT, "RESULT median_ms=%.2f min_ms=%.2f max_ms=%.2f%n", median, ms[0], ms[samples - 1]);
    }
}
