package dev.tunnel.e2e;

import dev.tunnel.e2e.Payloads.Summary;
import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** What a user of a public port does: connect, send, read the answer. */
final class PublicClient {
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    private PublicClient() {
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
