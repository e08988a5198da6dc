package dev.tunnel.e2e;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A plain TCP relay in front of the tunnel server that a test can cut: every connection the
 * client opens (the control connection first, then pool-mode work connections) is forwarded to
 * the server byte for byte, and {@link #cutAllButFirst()} closes all but the first, as a NAT or
 * a middlebox that drops connections would. Blocking sockets, two threads per connection.
 */
final class CuttableRelay implements AutoCloseable {
    private final ServerSocket listener;
    private final List<Socket[]> pairs = new CopyOnWriteArrayList<>();
    private volatile int target;

    CuttableRelay() throws IOException {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "cuttable-relay");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** Where connections go: the server's port. Set before the client connects. */
    void target(int port) {
        this.target = port;
    }

    /** Connections forwarded and still open at both ends. */
    int openCount() {
        return (int) pairs.stream().filter(p -> !p[0].isClosed() && !p[1].isClosed()).count();
    }

    /** Connections accepted so far, open or not. */
    int acceptedCount() {
        return pairs.size();
    }

    /** Closes every connection but the first one accepted (the control connection). */
    void cutAllButFirst() {
        for (int i = 1; i < pairs.size(); i++) {
            closeQuietly(pairs.get(i));
        }
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket in = listener.accept();
                Socket out = new Socket();
                out.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target), 5000);
                Socket[] pair = {in, out};
                pairs.add(pair);
                copy(in, out, pair);
                copy(out, in, pair);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void copy(Socket from, Socket to, Socket[] pair) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                }
            } catch (IOException ended) {
                // either end closed
            } finally {
                closeQuietly(pair);
            }
        }, "cuttable-relay-copy");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket[] pair) {
        for (Socket s : pair) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        pairs.forEach(CuttableRelay::closeQuietly);
    }
}
