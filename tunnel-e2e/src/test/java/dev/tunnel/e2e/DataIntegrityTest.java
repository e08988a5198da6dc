package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many public connections at once, each echoing megabytes of random bytes through the tunnel:
 * every connection must get back exactly what it sent (same length, same SHA-256), with TLS
 * between client and server and without.
 *
 * <p>One test thread drives every public connection with a selector, so all of them are open
 * and moving data at the same time without a thread each; the echo app uses a thread per
 * connection.
 */
class DataIntegrityTest {
    private static final int CONNECTIONS = 200;
    private static final int BYTES_PER_CONNECTION = 1024 * 1024;
    /** Fails the test (with details) when no connection moved a byte for this long. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(120)
    void concurrentConnectionsEchoEveryByte(boolean tls) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int port = tunnel.builder().tls(tls).proxy("echo", echo.port()).start().port("echo");

        List<Connection> connections = new ArrayList<>();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < CONNECTIONS; i++) {
                SocketChannel ch = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
                ch.configureBlocking(false);
                Connection c = new Connection(ch, i);
                ch.register(selector, SelectionKey.OP_READ | SelectionKey.OP_WRITE, c);
                connections.add(c);
            }
            pump(selector, connections);
        } finally {
            for (Connection c : connections) {
                c.channel.close();
            }
        }

        for (Connection c : connections) {
            assertThat(c.received).as("bytes echoed on connection %d", c.index).isEqualTo(BYTES_PER_CONNECTION);
            assertThat(c.receivedSha256).as("SHA-256 of what came back on connection %d", c.index)
                    .isEqualTo(c.sentSha256);
        }
    }

    private static void pump(Selector selector, List<Connection> connections) throws IOException {
        int open = connections.size();
        long lastProgress = System.nanoTime();
        while (open > 0) {
            if (Thread.currentThread().isInterrupted()) {
                // @Timeout interrupts this thread; a selector only wakes up, so stop here.
                throw new InterruptedIOException("interrupted; " + describe(connections));
            }
            if (selector.select(1000) == 0) {
                if (System.nanoTime() - lastProgress > STALL_NANOS) {
                    throw new AssertionError("no progress for 30 s; " + describe(connections));
                }
                continue;
            }
            lastProgress = System.nanoTime();
            for (SelectionKey key : selector.selectedKeys()) {
                Connection c = (Connection) key.attachment();
                if (key.isValid() && key.isWritable()) {
                    c.write(key);
                }
                if (key.isValid() && key.isReadable() && c.read()) {
                    key.cancel();
                    open--;
                }
            }
            selector.selectedKeys().clear();
        }
    }

    private static String describe(List<Connection> connections) {
        long done = connections.stream().filter(c -> c.receivedSha256 != null).count();
        long sentAll = connections.stream().filter(c -> c.outputShut).count();
        return done + " connections complete, " + sentAll + " sent everything, first unfinished: "
                + connections.stream().filter(c -> c.receivedSha256 == null).findFirst().map(Object::toString).orElse("-");
    }

    /** One public connection: sends random bytes, hashes what it sends and what comes back. */
    private static final class Connection {
        final SocketChannel channel;
        final int index;
        final SplittableRandom random;
        final MessageDigest sentDigest = Payloads.sha256();
        final MessageDigest receivedDigest = Payloads.sha256();
        final ByteBuffer out = ByteBuffer.allocate(32 * 1024).flip();
        final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
        long generated;
        long received;
        boolean outputShut;
        String sentSha256;
        String receivedSha256;

        Connection(SocketChannel channel, int index) {
            this.channel = channel;
            this.index = index;
            this.random = new SplittableRandom(index);
        }

        void write(SelectionKey key) throws IOException {
            while (true) {
                if (!out.hasRemaining()) {
                    if (generated == BYTES_PER_CONNECTION) {
                        channel.shutdownOutput();
                        outputShut = true;
                        sentSha256 = Payloads.hex(sentDigest);
                        key.interestOps(SelectionKey.OP_READ);
                        return;
                    }
                    int n = (int) Math.min(out.capacity(), BYTES_PER_CONNECTION - generated);
                    out.clear().limit(n);
                    random.nextBytes(out.array());
                    sentDigest.update(out.array(), 0, n);
                    generated += n;
                }
                if (channel.write(out) == 0) {
                    return;
                }
            }
        }

        /** Reads what is there; true at EOF. */
        boolean read() throws IOException {
            int n;
            while ((n = channel.read(in.clear())) > 0) {
                receivedDigest.update(in.array(), 0, n);
                received += n;
            }
            if (n < 0) {
                receivedSha256 = Payloads.hex(receivedDigest);
                return true;
            }
            return false;
        }

        @Override
        public String toString() {
            return "connection " + index + " (generated " + generated + ", received " + received + ", output shut "
                    + outputShut + ")";
        }
    }
}
