package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code type = "udp"} in pool mode ({@code transport.tcpMux = false}): the proxy's associations
 * ride one work connection of its own (a carrier session), replaced when it drops, closed when the
 * proxy closes.
 */
@Timeout(60)
class UdpPoolModeTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private TunnelExtension.Tunnel poolTunnel(int localPort, CuttableRelay relay) throws Exception {
        return tunnel.builder().mode(Mode.POOL).tls(true).client(c -> {
            c.transport.poolCount = 1;
            if (relay != null) {
                relay.target(c.serverPort);
                c.serverPort = relay.port();
            }
            ProxyConfig p = TunnelExtension.proxyConfig("dns", localPort, 0);
            p.type = "udp";
            c.proxies.add(p);
        }).start();
    }

    @Test
    void twoThousandDatagramsPacedAt10000PerSecondComeBackIntact() throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        int port = poolTunnel(echo.port(), null).port("dns");
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        awaitEcho(server);
        int intact = PacedDatagrams.echoed(server, 2000, 1200, 10_000, 2000);
        assertThat(intact).as("datagrams back intact of 2000, sent at 10,000/s, pool mode").isGreaterThanOrEqualTo(1998);
    }

    @Test
    void aWorkConnectionLostMidAssociationIsReplacedAndTheNextDatagramsGoThrough() throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        CuttableRelay relay = tunnel.closeAfterTest(new CuttableRelay());
        int port = poolTunnel(echo.port(), relay).port("dns");
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        try (DatagramSocket peer = peer()) {
            await("the first echo").atMost(Duration.ofSeconds(15)).until(() -> echoOnce(peer, server, "before"));
            int accepted = relay.acceptedCount();
            relay.cutAllButFirst(); // the carrier and the idle work connection; the control connection stays
            await("a datagram echoed through a new work connection").atMost(Duration.ofSeconds(15))
                    .until(() -> echoOnce(peer, server, "after"));
            assertThat(relay.acceptedCount()).as("work connections opened after the cut").isGreaterThan(accepted);
        }
        assertThat(CapturedLogs.snapshot()).anyMatch(line ->
                line.contains("proxy [dns]: work connection") && line.contains("carrying its datagrams closed; taking another"));
    }

    @Test
    void aClosedProxyClosesItsWorkConnection() throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        CuttableRelay relay = tunnel.closeAfterTest(new CuttableRelay());
        TunnelExtension.Tunnel t = poolTunnel(echo.port(), relay);
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), t.port("dns"));
        try (DatagramSocket peer = peer()) {
            await("the first echo").atMost(Duration.ofSeconds(15)).until(() -> echoOnce(peer, server, "hello"));
        }
        // control + the idle work connection (poolCount = 1, refilled when the carrier took one) + the carrier
        await("control, idle and carrier connections").atMost(Duration.ofSeconds(10)).until(() -> relay.openCount() == 3);
        assertThat(t.client().removeProxy("dns")).isTrue();
        await("the carrier's work connection closed").atMost(Duration.ofSeconds(10)).until(() -> relay.openCount() == 2);
        assertThat(echo.sources()).hasSize(1);
    }

    /** Sends until the echo answers: the carrier is asked for when the proxy starts and may still be on its way. */
    private static void awaitEcho(InetSocketAddress server) throws IOException {
        try (DatagramSocket peer = peer()) {
            await("the first echo").atMost(Duration.ofSeconds(15)).until(() -> echoOnce(peer, server, "warm-up"));
        }
    }

    private static boolean echoOnce(DatagramSocket peer, InetSocketAddress server, String text) throws IOException {
        byte[] d = text.getBytes();
        peer.send(new DatagramPacket(d, d.length, server));
        byte[] buf = new byte[2048];
        DatagramPacket in = new DatagramPacket(buf, buf.length);
        try {
            while (true) {
                peer.receive(in);
                if (Arrays.equals(Arrays.copyOf(buf, in.getLength()), d)) {
                    return true;
                }
            }
        } catch (SocketTimeoutException lost) {
            return false;
        }
    }

    private static DatagramSocket peer() throws IOException {
        DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        s.setSoTimeout(500);
        return s;
    }
}
