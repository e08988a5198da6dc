package dev.tunnel.e2e;

import static dev.tunnel.e2e.TokenBoundTlsTest.await;
import static dev.tunnel.e2e.TokenBoundTlsTest.logs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.ProxyConfig;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code transport.bandwidthLimit} paces one proxy and not its neighbour, in both modes and both
 * directions, with every byte intact; {@code maxConnectionsPerProxy} and
 * {@code maxConnectionsPerIP} refuse the surplus public connection and keep the others.
 *
 * <p>Timing bands are generous on purpose (a shared, noisy machine): 1 MiB through a 256 KiB/s
 * limit with one second of burst takes about 3 s; the assertion is 1.5 s to 15 s, and the
 * unlimited proxy must be at least twice as fast.
 */
@Timeout(60)
class BandwidthAndCapsTest {
    private static final int SIZE = 1024 * 1024;
    private static final String LIMIT = "256KB";
    /** Half of the 3 s that 1 MiB takes at 256 KiB/s after a full bucket's 256 KiB. */
    private static final long MIN_LIMITED_MILLIS = 1_500;
    /** Five times those 3 s. */
    private static final long MAX_LIMITED_MILLIS = 15_000;

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @ParameterizedTest(name = "{0}")
    @EnumSource(TunnelExtension.Mode.class)
    void clientModeLimitsWhatVisitorsDownloadFromThatProxyOnly(TunnelExtension.Mode mode) throws Exception {
        byte[] file = Payloads.random(SIZE, 12);
        // The app stays open until the visitor has everything: a socket whose peer has closed is
        // drained at once (epoll reads to EOF after RDHUP), which is not what this test measures.
        LocalApp app = tunnel.localApp(socket -> {
            socket.getOutputStream().write(file);
            socket.getInputStream().transferTo(OutputStream.nullOutputStream());
            socket.close();
        });
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode)
                .proxy("limited", app.port()).proxy("free", app.port())
                .client(c -> limit(c.proxies.get(0), "client")).start();

        long free = download(t.port("free"), file);
        long limited = download(t.port("limited"), file);

        assertThat(limited).as("limited download, ms").isBetween(MIN_LIMITED_MILLIS, MAX_LIMITED_MILLIS);
        assertThat(free).as("unlimited download, ms (limited took %d)", limited).isLessThan(limited / 2);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(TunnelExtension.Mode.class)
    void serverModeLimitsWhatVisitorsUploadToThatProxyOnly(TunnelExtension.Mode mode) throws Exception {
        byte[] upload = Payloads.random(SIZE, 13);
        LocalApp app = tunnel.localApp(socket -> {
            byte[] got = socket.getInputStream().readNBytes(SIZE);
            socket.getOutputStream().write(Payloads.sha256(got).getBytes(StandardCharsets.US_ASCII));
            socket.close();
        });
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode)
                .proxy("limited", app.port()).proxy("free", app.port())
                .client(c -> limit(c.proxies.get(0), "server")).start();

        long free = upload(t.port("free"), upload);
        long limited = upload(t.port("limited"), upload);

        assertThat(limited).as("limited upload, ms").isBetween(MIN_LIMITED_MILLIS, MAX_LIMITED_MILLIS);
        assertThat(free).as("unlimited upload, ms (limited took %d)", limited).isLessThan(limited / 2);
    }

    @Test
    void connectionsBeyondMaxConnectionsPerProxyAreRefusedAndTheOthersKeepWorking() throws Exception {
        LocalApp echo = tunnel.localApp(BandwidthAndCapsTest::echo);
        TunnelExtension.Tunnel t = tunnel.builder().server(c -> c.transport.maxConnectionsPerProxy = 2)
                .proxy("a", echo.port()).proxy("b", echo.port()).start();
        List<Socket> open = new ArrayList<>();
        try {
            open.add(echoing(t.port("a")));
            open.add(echoing(t.port("a")));
            try (Socket third = new Socket("127.0.0.1", t.port("a"))) {
                third.setSoTimeout(5_000);
                assertThat(readOrReset(third)).as("the third connection to a is refused").isEqualTo(-1);
            }
            open.add(echoing(t.port("b"))); // another proxy is not affected
            for (Socket s : open) {
                assertEchoes(s); // nor are the connections already open
            }
            await(() -> logs().contains("transport.maxConnectionsPerProxy = 2"));
            open.remove(0).close();
            await(() -> {
                try (Socket again = echoing(t.port("a"))) {
                    assertEchoes(again);
                    return true;
                } catch (Exception refusedStill) {
                    return false;
                }
            });
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
    }

    @Test
    void connectionsBeyondMaxConnectionsPerIPAreRefusedOverAllProxies() throws Exception {
        LocalApp echo = tunnel.localApp(BandwidthAndCapsTest::echo);
        TunnelExtension.Tunnel t = tunnel.builder().server(c -> c.transport.maxConnectionsPerIP = 3)
                .proxy("a", echo.port()).proxy("b", echo.port()).start();
        List<Socket> open = new ArrayList<>();
        try {
            open.add(echoing(t.port("a")));
            open.add(echoing(t.port("a")));
            open.add(echoing(t.port("b")));
            try (Socket fourth = new Socket("127.0.0.1", t.port("b"))) {
                fourth.setSoTimeout(5_000);
                assertThat(readOrReset(fourth)).as("a fourth connection from 127.0.0.1 is refused").isEqualTo(-1);
            }
            for (Socket s : open) {
                assertEchoes(s);
            }
            await(() -> logs().contains("transport.maxConnectionsPerIP = 3"));
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
    }

    private static void echo(Socket socket) throws Exception {
        socket.getInputStream().transferTo(socket.getOutputStream());
        socket.close();
    }

    private static void limit(ProxyConfig proxy, String mode) {
        proxy.transport.bandwidthLimit = LIMIT;
        proxy.transport.bandwidthLimitMode = mode;
    }

    /** Reads {@code expected} from one connection; returns the milliseconds it took. */
    private static long download(int port, byte[] expected) throws Exception {
        long start = System.nanoTime();
        byte[] got;
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            got = s.getInputStream().readNBytes(expected.length);
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(got.length).as("bytes downloaded").isEqualTo(expected.length);
        assertThat(Payloads.sha256(got)).as("sha-256 of the download").isEqualTo(Payloads.sha256(expected));
        return millis;
    }

    /** Sends {@code data} and waits for the local app's checksum of what it got (no half-close before: see above). */
    private static long upload(int port, byte[] data) throws Exception {
        long start = System.nanoTime();
        String answer;
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(data);
            answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertThat(answer).as("sha-256 of what the local app received").isEqualTo(Payloads.sha256(data));
        return millis;
    }

    private static Socket echoing(int port) throws Exception {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(5_000);
        assertEchoes(s);
        return s;
    }

    private static void assertEchoes(Socket s) throws Exception {
        byte[] ping = "ping".getBytes(StandardCharsets.US_ASCII);
        s.getOutputStream().write(ping);
        InputStream in = s.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        while (got.size() < ping.length) {
            int b = in.read();
            if (b < 0) {
                throw new java.io.EOFException("closed after " + got.size() + " bytes");
            }
            got.write(b);
        }
        assertThat(got.toByteArray()).isEqualTo(ping);
    }

    private static int readOrReset(Socket s) throws Exception {
        try {
            return s.getInputStream().read();
        } catch (java.net.SocketException reset) {
            return -1;
        }
    }
}
