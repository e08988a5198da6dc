package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.config.VisitorConfig;
import dev.tunnel.server.TunnelServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What frp applies to udp, sudp and stcp proxies beyond carrying them: a udp proxy's
 * {@code transport.proxyProtocolVersion = "v2"} header before a new peer's first datagram, its
 * {@code bandwidthLimit} in either mode (datagrams over the limit dropped), an stcp proxy's PROXY
 * header naming the visitor client, and an stcp proxy's {@code denyIPs} refusing a visitor client
 * by its address.
 */
@Timeout(60)
class UdpAndSecretExtrasTest {
    /** PROXY protocol v2's 12-byte signature. */
    private static final byte[] V2_SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private static ProxyConfig udp(String name, int localPort) {
        ProxyConfig p = TunnelExtension.proxyConfig(name, localPort, 0);
        p.type = "udp";
        return p;
    }

    private static DatagramSocket peer() throws IOException {
        DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        s.setSoTimeout(3000);
        return s;
    }

    private static byte[] exchange(DatagramSocket s, int port, String text) throws IOException {
        byte[] out = text.getBytes(StandardCharsets.US_ASCII);
        s.send(new DatagramPacket(out, out.length, InetAddress.getLoopbackAddress(), port));
        byte[] buf = new byte[2048];
        DatagramPacket in = new DatagramPacket(buf, buf.length);
        s.receive(in);
        return Arrays.copyOf(buf, in.getLength());
    }

    @Test
    void aUdpProxyPutsAV2HeaderBeforeEachNewPeersFirstDatagramOnly() throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        ProxyConfig p = udp("dns", echo.port());
        p.transport.proxyProtocolVersion = "v2";
        int port = tunnel.builder().client(c -> c.proxies.add(p)).start().port("dns");
        try (DatagramSocket s = peer()) {
            byte[] first = exchange(s, port, "hello");
            assertThat(Arrays.copyOf(first, 12)).as("v2 signature").isEqualTo(V2_SIGNATURE);
            assertThat(first[12]).as("version 2, PROXY").isEqualTo((byte) 0x21);
            assertThat(first[13]).as("IPv4 over UDP").isEqualTo((byte) 0x12);
            ByteBuffer addresses = ByteBuffer.wrap(first, 16, 12);
            byte[] source = new byte[4];
            addresses.get(source);
            addresses.getInt(); // destination: the server's bound address
            assertThat(InetAddress.getByAddress(source)).isEqualTo(InetAddress.getLoopbackAddress());
            assertThat(addresses.getShort() & 0xFFFF).as("source port").isEqualTo(s.getLocalPort());
            assertThat(addresses.getShort() & 0xFFFF).as("destination port").isEqualTo(port);
            assertThat(new String(first, 28, first.length - 28, StandardCharsets.US_ASCII)).isEqualTo("hello");
            assertThat(new String(exchange(s, port, "again"), StandardCharsets.US_ASCII))
                    .as("later datagrams of the same peer come as sent").isEqualTo("again");
        }
    }

    @ParameterizedTest(name = "bandwidthLimitMode = {0}")
    @ValueSource(strings = {"client", "server"})
    void aUdpProxysBandwidthLimitDropsWhatIsOverItAndLeavesItsNeighbourAlone(String mode) throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        ProxyConfig limited = udp("limited", echo.port());
        limited.transport.bandwidthLimit = "2KB";
        limited.transport.bandwidthLimitMode = mode;
        TunnelExtension.Tunnel t = tunnel.builder().client(c -> {
            c.proxies.add(limited);
            c.proxies.add(udp("free", echo.port()));
        }).start();
        // 40 datagrams of 500 bytes at once: 20 KB against one second's burst of 2 KB
        assertThat(burstAndCount(t.port("free"), 40)).as("unlimited: all come back").isGreaterThanOrEqualTo(38);
        assertThat(burstAndCount(t.port("limited"), 40)).as("limited to about 2 KB of them").isBetween(1, 10);
    }

    private static int burstAndCount(int port, int count) throws IOException {
        try (DatagramSocket s = peer()) {
            s.setReceiveBufferSize(1 << 20);
            byte[] d = new byte[500];
            for (int i = 0; i < count; i++) {
                s.send(new DatagramPacket(d, d.length, InetAddress.getLoopbackAddress(), port));
            }
            s.setSoTimeout(1500);
            int back = 0;
            DatagramPacket in = new DatagramPacket(new byte[2048], 2048);
            try {
                while (back < count) {
                    s.receive(in);
                    back++;
                }
            } catch (SocketTimeoutException done) {
                // whatever did not come back within 1.5 s was dropped
            }
            return back;
        }
    }

    @Test
    void anStcpProxyPutsAPROXYHeaderNamingTheVisitorClientBeforeItsBytes() throws Exception {
        LocalApp app = tunnel.localApp(socket -> {
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            String header = in.readLine();
            String line = in.readLine();
            socket.getOutputStream().write((header + "|" + line + "\n").getBytes(StandardCharsets.US_ASCII));
            socket.close();
        });
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        ProxyConfig p = secret("stcp", app.port());
        p.transport.proxyProtocolVersion = "v1";
        provider(server, p);
        int port = visitor(server);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("ping\n".getBytes(StandardCharsets.US_ASCII));
            String answer = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            assertThat(answer).matches("PROXY TCP4 127\\.0\\.0\\.1 127\\.0\\.0\\.1 \\d+ " + server.port() + "\\|ping");
        }
    }

    @Test
    void anStcpProxysDenyIPsRefusesAVisitorClientByItsAddress() throws Exception {
        AtomicInteger reached = new AtomicInteger();
        LocalApp app = tunnel.localApp(socket -> {
            reached.incrementAndGet();
            socket.close();
        });
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        ProxyConfig p = secret("stcp", app.port());
        p.denyIPs = List.of("127.0.0.0/8");
        provider(server, p);
        int port = visitor(server);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("ping\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(s.getInputStream().read()).isEqualTo(-1);
        } catch (java.net.SocketException reset) {
            // the visitor client resets its connection once the server refused the stream: refused too
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> CapturedLogs.snapshot().stream().anyMatch(
                l -> l.contains("refused this client's address")));
        assertThat(reached).hasValue(0);
    }

    private static ProxyConfig secret(String type, int localPort) {
        ProxyConfig p = TunnelExtension.proxyConfig("secret", localPort, 0);
        p.type = type;
        p.secretKey = "abcdefg";
        return p;
    }

    private void provider(TunnelServer server, ProxyConfig p) throws Exception {
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.proxies.add(p);
        tunnel.startClient(config).awaitRemotePort("secret", TunnelExtension.LOGIN_TIMEOUT);
    }

    private int visitor(TunnelServer server) throws Exception {
        int port = FreePorts.one();
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        VisitorConfig v = new VisitorConfig();
        v.name = "v";
        v.type = "stcp";
        v.serverUser = "";
        v.serverName = "secret";
        v.secretKey = "abcdefg";
        v.bindPort = port;
        config.visitors.add(v);
        TunnelClient client = tunnel.startClient(config);
        client.firstLogin().get(TunnelExtension.LOGIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> CapturedLogs.snapshot().stream()
                .anyMatch(l -> l.contains("listening on 127.0.0.1:" + port)));
        return port;
    }
}
