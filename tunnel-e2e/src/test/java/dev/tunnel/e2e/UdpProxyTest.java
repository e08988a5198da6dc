package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.config.ProxyConfig;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code type = "udp"}: datagrams reach the local app whole and its replies come back to the
 * peer that sent them; longer datagrams than {@code udpPacketSize} are dropped, not cut.
 */
@Timeout(60)
class UdpProxyTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private TunnelExtension.Tunnel udpTunnel(int localPort) throws Exception {
        return tunnel.builder().client(c -> {
            ProxyConfig p = TunnelExtension.proxyConfig("dns", localPort, 0);
            p.type = "udp";
            c.proxies.add(p);
        }).start();
    }

    private static DatagramSocket peer() throws IOException {
        DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        s.setSoTimeout(2000);
        s.setReceiveBufferSize(4 * 1024 * 1024);
        return s;
    }

    private static byte[] datagram(int seq, int size) {
        byte[] b = new byte[size];
        new Random(seq).nextBytes(b);
        ByteBuffer.wrap(b).putInt(seq);
        return b;
    }

    @Test
    void twoThousandDatagramsOf1200BytesComeBackIntact() throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        int port = udpTunnel(echo.port()).port("dns");
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        int total = 2000;
        int window = 32;
        boolean[] back = new boolean[total];
        int intact = 0;
        try (DatagramSocket s = peer()) {
            byte[] buf = new byte[2048];
            DatagramPacket in = new DatagramPacket(buf, buf.length);
            int sent = 0;
            int outstanding = 0;
            while (sent < total || outstanding > 0) {
                while (sent < total && outstanding < window) {
                    byte[] d = datagram(sent, 1200);
                    s.send(new DatagramPacket(d, d.length, server));
                    sent++;
                    outstanding++;
                }
                try {
                    s.receive(in);
                } catch (SocketTimeoutException lost) {
                    outstanding = 0; // whatever was in flight is lost; go on
                    continue;
                }
                outstanding--;
                int seq = ByteBuffer.wrap(buf).getInt();
                if (in.getLength() == 1200 && seq >= 0 && seq < total && !back[seq]
                        && Arrays.equals(Arrays.copyOf(buf, 1200), datagram(seq, 1200))) {
                    back[seq] = true;
                    intact++;
                }
            }
        }
        assertThat(intact).as("datagrams back intact of %d", total).isGreaterThanOrEqualTo(1998);
    }

    @Test
    void twoThousandDatagramsPacedAt10000PerSecondComeBackIntact() throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        int port = udpTunnel(echo.port()).port("dns");
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        int intact = PacedDatagrams.echoed(server, 2000, 1200, 10_000, 2000);
        assertThat(intact).as("datagrams back intact of 2000, sent at 10,000/s").isGreaterThanOrEqualTo(1998);
    }

    @Test
    void eachPeerGetsItsOwnRepliesThroughItsOwnAssociation() throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        int port = udpTunnel(echo.port()).port("dns");
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        DatagramSocket[] peers = new DatagramSocket[3];
        try {
            for (int i = 0; i < peers.length; i++) {
                peers[i] = peer();
            }
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < peers.length; i++) {
                    byte[] d = ("peer " + i + " round " + round).getBytes();
                    peers[i].send(new DatagramPacket(d, d.length, server));
                }
                for (int i = 0; i < peers.length; i++) {
                    assertThat(receive(peers[i])).isEqualTo("peer " + i + " round " + round);
                }
            }
        } finally {
            for (DatagramSocket p : peers) {
                if (p != null) {
                    p.close();
                }
            }
        }
        assertThat(echo.sources()).as("one local socket per peer").hasSize(3);
    }

    @Test
    void aDatagramLongerThanUdpPacketSizeIsDroppedAndTheNextOneStillArrives() throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        int port = udpTunnel(echo.port()).port("dns");
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        try (DatagramSocket s = peer()) {
            byte[] big = new byte[1501];
            s.send(new DatagramPacket(big, big.length, server));
            byte[] small = "small".getBytes();
            s.send(new DatagramPacket(small, small.length, server));
            assertThat(receive(s)).isEqualTo("small");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> CapturedLogs.snapshot().stream()
                .anyMatch(line -> line.contains("proxy [dns] dropped datagrams (1 longer than udpPacketSize)")));
    }

    @Test
    void aTcpAndAUdpProxyShareOnePortNumberAsIperf3Needs() throws Exception {
        UdpEcho udpEcho = tunnel.closeAfterTest(new UdpEcho());
        EchoServer tcpEcho = tunnel.echoServer();
        int shared = FreePorts.one();
        TunnelExtension.Tunnel t = tunnel.builder().proxy("tcp", tcpEcho.port(), shared).client(c -> {
            ProxyConfig p = TunnelExtension.proxyConfig("udp", udpEcho.port(), shared);
            p.type = "udp";
            c.proxies.add(p);
        }).start();
        assertThat(t.port("tcp")).isEqualTo(shared);
        assertThat(t.port("udp")).isEqualTo(shared);
        try (DatagramSocket s = peer()) {
            byte[] d = "both".getBytes();
            s.send(new DatagramPacket(d, d.length, new InetSocketAddress(InetAddress.getLoopbackAddress(), shared)));
            assertThat(receive(s)).isEqualTo("both");
        }
    }

    private static String receive(DatagramSocket s) throws IOException {
        byte[] buf = new byte[2048];
        DatagramPacket in = new DatagramPacket(buf, buf.length);
        s.receive(in);
        return new String(buf, 0, in.getLength());
    }
}
