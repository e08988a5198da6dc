package dev.tunnel.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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
 * The tool warms its own socket code first, against a throwaway listener in this process
 * (cold, the JVM's connect-write-read path costs about a millisecond, which would be charged to
 * whatever is measured); then two unrecorded connections go to the target (its first accept).
 */
public final class FirstByte {
    private static final int WARM_UP_CONNECTIONS = 3_000;

    private FirstByte() {
    }

    /** Milliseconds from connect() to the first byte read, one per sample, sorted. */
    public static double[] measure(InetSocketAddress target, int samples, String path) throws IOException, InterruptedException {
        byte[] request = ("GET " + path + " HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        warmUp(request);
        double[] out = new double[samples];
        for (int i = -2; i < samples; i++) {
            double ms = once(target, request);
            if (i >= 0) {
                out[i] = ms;
            }
            Thread.sleep(20);
        }
        Arrays.sort(out);
        return out;
    }

    /** One connection: milliseconds from connect() to the first byte of the answer. */
    private static double once(InetSocketAddress target, byte[] request) throws IOException {
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
            in.readAllBytes();
            return elapsed / 1e6;
        }
    }

    /** Runs {@link #once} {@value #WARM_UP_CONNECTIONS} times against a listener of this process that answers one byte. */
    private static void warmUp(byte[] request) throws IOException, InterruptedException {
        try (ServerSocket listener = new ServerSocket(0, 128, InetAddress.getLoopbackAddress())) {
            Thread answerer = new Thread(() -> {
                byte[] buf = new byte[request.length];
                for (int i = 0; i < WARM_UP_CONNECTIONS; i++) {
                    try (Socket s = listener.accept()) {
                        s.getInputStream().readNBytes(buf, 0, buf.length);
                        s.getOutputStream().write('x');
                    } catch (IOException e) {
                        return; // the listener was closed
                    }
                }
            }, "first-byte-warm-up");
            answerer.setDaemon(true);
            answerer.start();
            InetSocketAddress self = new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
            for (int i = 0; i < WARM_UP_CONNECTIONS; i++) {
                once(self, request);
            }
            answerer.join(10_000);
        }
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
