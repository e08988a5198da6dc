package dev.tunnel.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.bench.LinkEmulator.Fault;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What each side of a relayed connection sees under each fault, while it lasts and after it
 * ends: the chaos tests of tunnel-e2e rely on exactly this. Plain blocking sockets on both
 * sides, so nothing but the emulator decides what arrives.
 */
@Timeout(30)
class LinkEmulatorTest {
    /** How long "nothing arrives" is watched for. */
    private static final int SILENCE_MILLIS = 500;

    private ServerSocket target;
    private LinkEmulator link;

    /** The two ends of one connection through the link: the one that connected, and the target's. */
    private record Ends(Socket client, Socket server) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            client.close();
            server.close();
        }
    }

    @BeforeEach
    void start() throws Exception {
        target = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        link = LinkEmulator.start(new InetSocketAddress("127.0.0.1", 0),
                new InetSocketAddress("127.0.0.1", target.getLocalPort()), LinkEmulator.Settings.delay(1), 1);
    }

    @AfterEach
    void stop() throws IOException {
        link.close();
        target.close();
    }

    private Ends connect() throws IOException {
        Socket client = new Socket("127.0.0.1", link.port());
        Socket server = target.accept();
        client.setSoTimeout(5000);
        server.setSoTimeout(5000);
        return new Ends(client, server);
    }

    private static void send(Socket from, String text) throws IOException {
        from.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
        from.getOutputStream().flush();
    }

    private static String receive(Socket at, int bytes) throws IOException {
        return new String(at.getInputStream().readNBytes(bytes), StandardCharsets.US_ASCII);
    }

    /** Bytes flow both ways. */
    private static void assertForwards(Ends ends) throws IOException {
        send(ends.client, "ping");
        assertThat(receive(ends.server, 4)).isEqualTo("ping");
        send(ends.server, "pong");
        assertThat(receive(ends.client, 4)).isEqualTo("pong");
    }

    /** A new connection, checked to forward both ways. */
    private Ends forwarding() throws IOException {
        Ends ends = connect();
        assertForwards(ends);
        return ends;
    }

    /** A connection that forwards, then {@code mode} set and at once ended: it hits that connection only. */
    private Ends hitByBriefFault(Fault mode) throws IOException {
        Ends ends = forwarding();
        link.fault(mode);
        link.fault(Fault.NONE);
        return ends;
    }

    private void assertNewConnectionsForward() throws IOException {
        try (Ends after = connect()) {
            assertForwards(after);
        }
    }

    /** Nothing arrives at {@code at}: no byte, no EOF, no reset. */
    private static void assertSilent(Socket at) throws IOException {
        at.setSoTimeout(SILENCE_MILLIS);
        assertThatThrownBy(() -> at.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        at.setSoTimeout(5000);
    }

    /** The connection ended at {@code at}: EOF or a reset (the JDK may report the RST either way). */
    private static void assertEnded(Socket at) {
        int read;
        try {
            read = at.getInputStream().read();
        } catch (SocketException e) {
            read = -2;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        assertThat(read).isIn(-1, -2);
    }

    @Test
    void stallHoldsBytesAndEofBackAndDeliversThemWhenItEnds() throws Exception {
        try (Ends ends = forwarding()) {
            link.fault(Fault.STALL);
            send(ends.client, "held");
            ends.client.shutdownOutput();
            assertSilent(ends.server);
            link.fault(Fault.NONE);
            InputStream in = ends.server.getInputStream();
            assertThat(new String(in.readNBytes(4), StandardCharsets.US_ASCII)).isEqualTo("held");
            assertThat(in.read()).as("the EOF, after the bytes").isEqualTo(-1);
        }
    }

    @Test
    void resetEndsBothSidesOfOpenConnectionsAndNewOnesWorkOnceItEnds() throws Exception {
        try (Ends before = hitByBriefFault(Fault.RESET)) {
            assertEnded(before.client);
            assertEnded(before.server);
            assertNewConnectionsForward();
        }
    }

    @Test
    void resetClientSideLeavesTheTargetSideOpenAndSilentForGood() throws Exception {
        try (Ends before = hitByBriefFault(Fault.RESET_CLIENT_SIDE)) {
            assertEnded(before.client);
            send(before.server, "into the void"); // accepted and dropped: the target side sees no error
            assertSilent(before.server);
            assertNewConnectionsForward();
            assertSilent(before.server);
        }
    }

    @Test
    void resetClientSideResetsNewConnectionsWhileItLasts() throws Exception {
        link.fault(Fault.RESET_CLIENT_SIDE);
        try (Socket client = new Socket("127.0.0.1", link.port())) {
            client.setSoTimeout(5000);
            assertEnded(client);
        }
        link.fault(Fault.NONE);
        assertNewConnectionsForward();
    }

    @Test
    void halfOpenConnectionsNeverForwardAgainSoNoStreamHasAHole() throws Exception {
        try (Ends before = forwarding()) {
            link.fault(Fault.HALF_OPEN);
            send(before.client, "lost");
            send(before.server, "lost");
            link.fault(Fault.NONE);
            send(before.client, "after");
            send(before.server, "after");
            assertSilent(before.server);
            assertSilent(before.client);
            before.client.shutdownOutput();
            assertSilent(before.server);
            assertNewConnectionsForward();
        }
    }
}
