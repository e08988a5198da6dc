package dev.tunnel.client.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * What the proxy plugins connect to in tests, on 127.0.0.1 with an ephemeral port, one thread per
 * connection: an echo server, or an HTTP origin that records each request head and answers
 * {@code hello}, or one that switches protocols and then echoes.
 */
final class Targets implements AutoCloseable {
    static final String ORIGIN_BODY = "hello";

    private final ServerSocket server;
    /** Request heads the origin received, in order. */
    final BlockingQueue<String> heads = new LinkedBlockingQueue<>();

    private enum Kind { ECHO, ORIGIN, UPGRADE }

    private Targets(Kind kind) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread t = new Thread(() -> serve(s, kind), "target-conn");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException closed) {
                    return;
                }
            }
        }, "target-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static Targets echo() throws IOException {
        return new Targets(Kind.ECHO);
    }

    static Targets origin() throws IOException {
        return new Targets(Kind.ORIGIN);
    }

    /** Records the head, answers {@code 101 Switching Protocols}, then echoes. */
    static Targets upgrading() throws IOException {
        return new Targets(Kind.UPGRADE);
    }

    /**
     * Sends {@code size} random bytes (from {@code seed}) through {@code s}, an open path to an
     * echo target, then half-closes it, and checks that the same bytes come back before the EOF.
     */
    static void assertEchoes(Socket s, int size, long seed) throws Exception {
        byte[] payload = new byte[size];
        new Random(seed).nextBytes(payload);
        Thread writer = new Thread(() -> {
            try {
                s.getOutputStream().write(payload);
                s.shutdownOutput();
            } catch (IOException ignored) {
                // the read side reports it
            }
        });
        writer.start();
        byte[] back = s.getInputStream().readAllBytes();
        writer.join();
        assertThat(Arrays.equals(back, payload)).as("echoed bytes equal the sent ones").isTrue();
    }

    InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    int port() {
        return server.getLocalPort();
    }

    private void serve(Socket s, Kind kind) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            if (kind == Kind.UPGRADE) {
                heads.add(readHead(in));
                out.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            if (kind == Kind.ORIGIN) {
                heads.add(readHead(in));
                out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + ORIGIN_BODY.length() + "\r\nConnection: close\r\n\r\n"
                        + ORIGIN_BODY).getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return;
            }
            in.transferTo(out);
        } catch (IOException ignored) {
            // the test's client went away
        }
    }

    /** Reads up to and including the blank line that ends an HTTP head. */
    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.write(b);
            matched = b == end[matched] ? matched + 1 : b == '\r' ? 1 : 0;
        }
        return head.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
