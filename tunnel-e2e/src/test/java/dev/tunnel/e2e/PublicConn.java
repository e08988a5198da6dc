package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;

/** One public connection to an echo proxy on {@code host:port}, kept open across round trips. */
final class PublicConn implements AutoCloseable {
    private final Socket socket;

    PublicConn(String host, int port) throws IOException {
        socket = new Socket(host, port);
        socket.setSoTimeout(5_000);
    }

    /** True when a new connection to {@code host:port} echoes a small message back. */
    static boolean echoes(String host, int port) throws IOException {
        try (PublicConn c = new PublicConn(host, port)) {
            c.roundTrip(42);
            return true;
        }
    }

    /** Sends 4 KB made from {@code seed} and reads them back intact. */
    void roundTrip(int seed) throws IOException {
        byte[] data = Payloads.random(4096, seed);
        socket.getOutputStream().write(data);
        byte[] back = new byte[data.length];
        InputStream in = socket.getInputStream();
        int n = 0;
        while (n < back.length) {
            int r = in.read(back, n, back.length - n);
            if (r < 0) {
                throw new IOException("connection closed after " + n + " bytes");
            }
            n += r;
        }
        assertThat(back).isEqualTo(data);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
