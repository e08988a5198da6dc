package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.e2e.Payloads.Summary;
import java.io.IOException;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** What a user of a public port does: connect, send, read the answer. */
final class PublicClient {
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    private PublicClient() {
    }

    /**
     * Makes {@code connections} {@link #roundTrip}s to 127.0.0.1:{@code port} at once, the i-th
     * sending {@code payload.apply(i)}, and checks that each answer is its payload intact.
     */
    static void roundTripsInParallel(int port, int connections, IntFunction<byte[]> payload) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(connections);
        try {
            List<Future<Summary>> answers = new ArrayList<>();
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                byte[] data = payload.apply(i);
                sent.add(data);
                answers.add(threads.submit(() -> roundTrip(port, data)));
            }
            for (int i = 0; i < connections; i++) {
                assertThat(answers.get(i).get()).as("connection %d", i).isEqualTo(Payloads.summary(sent.get(i)));
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * Sends {@code data} to 127.0.0.1:{@code port} and half-closes, while reading the answer to
     * EOF on this thread (a second thread writes, so neither side waits for the other).
     */
    static Summary roundTrip(int port, byte[] data) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(READ_TIMEOUT_MILLIS); // a tunnel that loses the answer fails the test instead of hanging it
            CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
                try {
                    s.getOutputStream().write(data);
                    s.shutdownOutput();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }, r -> {
                Thread t = new Thread(r, "public-writer");
                t.setDaemon(true);
                t.start();
            });
            Summary answer = Payloads.drain(s.getInputStream());
            sent.get(5, TimeUnit.SECONDS);
            return answer;
        }
    }
}
