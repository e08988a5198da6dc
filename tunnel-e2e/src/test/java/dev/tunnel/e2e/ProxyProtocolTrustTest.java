package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageEncoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A balancer on 127.0.0.1 ({@code proxyProtocolTrustedIPs}) sends PROXY headers by hand; the
 * visitor they name reaches the local app (its own PROXY header, X-Forwarded-For), and
 * connections that break the trust rules are closed before the app sees them. 127.0.0.2 plays a
 * visitor that is no balancer.
 */
@Timeout(60)
class ProxyProtocolTrustTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private final int vhostPort = FreePorts.one();
    private final LinkedBlockingQueue<String> firstLines = new LinkedBlockingQueue<>();
    /** Connections the tcp tunnel's app accepted (streams or work connections that reached it). */
    private final AtomicInteger appConnections = new AtomicInteger();

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void aV1HeaderFromTheBalancerNamesTheVisitorToTheApp(Mode mode) throws Exception {
        int port = tcpTunnel(mode);
        try (Socket balancer = new Socket("127.0.0.1", port)) {
            balancer.getOutputStream().write(("PROXY TCP4 203.0.113.7 127.0.0.1 51234 " + port + "\r\nhello\n")
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(firstLines.poll(10, TimeUnit.SECONDS)).isEqualTo("PROXY TCP4 203.0.113.7 127.0.0.1 51234 " + port);
            assertThat(firstLines.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void aV2HeaderFromTheBalancerNamesTheVisitorToTheApp(Mode mode) throws Exception {
        int port = tcpTunnel(mode);
        try (Socket balancer = new Socket("127.0.0.1", port)) {
            balancer.getOutputStream().write(v2("198.51.100.20", 40404, port));
            balancer.getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(firstLines.poll(10, TimeUnit.SECONDS)).isEqualTo("PROXY TCP4 198.51.100.20 127.0.0.1 40404 " + port);
            assertThat(firstLines.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void theBalancerWithoutAHeaderIsRefusedBeforeTheAppSeesAConnection(Mode mode) throws Exception {
        int port = tcpTunnel(mode);
        try (Socket balancer = new Socket("127.0.0.1", port)) {
            balancer.setSoTimeout(10_000);
            balancer.getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readToEnd(balancer.getInputStream())).as("closed").isEqualTo(-1);
        }
        assertThat(firstLines.poll(500, TimeUnit.MILLISECONDS)).as("the app saw nothing").isNull();
        assertThat(appConnections.get()).as("no stream or work connection reached the app").isZero();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void aHeaderFromAnAddressThatIsNoBalancerIsRefusedBeforeAnythingGoesHomeAndItsOwnTrafficPasses(Mode mode)
            throws Exception {
        int port = tcpTunnel(mode);
        InetAddress other = otherLoopbackAddress();
        try (Socket forger = new Socket("127.0.0.1", port, other, 0)) {
            forger.setSoTimeout(10_000);
            forger.getOutputStream().write(("PROXY TCP4 203.0.113.7 127.0.0.1 51234 " + port + "\r\nhello\n")
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(readToEnd(forger.getInputStream())).as("closed").isEqualTo(-1);
        }
        try (Socket forger = new Socket("127.0.0.1", port, other, 0)) {
            forger.setSoTimeout(10_000);
            forger.getOutputStream().write(v2("203.0.113.8", 51235, port));
            assertThat(readToEnd(forger.getInputStream())).as("closed").isEqualTo(-1);
        }
        try (Socket visitor = new Socket("127.0.0.1", port, other, 0)) {
            visitor.getOutputStream().write("direct\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(firstLines.poll(10, TimeUnit.SECONDS))
                    .isEqualTo("PROXY TCP4 127.0.0.2 127.0.0.1 " + visitor.getLocalPort() + " " + port);
            assertThat(firstLines.poll(10, TimeUnit.SECONDS)).isEqualTo("direct");
        }
        assertThat(appConnections.get()).as("the forgers opened no stream and asked for no work connection").isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void aDirectVisitorToAnAppThatSpeaksFirstIsCarriedAfterAMoment(Mode mode) throws Exception {
        LocalApp app = tunnel.localApp(socket -> socket.getOutputStream().write(
                "banner\n".getBytes(StandardCharsets.US_ASCII)));
        int port = tunnel.builder().mode(mode).server(c -> c.proxyProtocolTrustedIPs = List.of("127.0.0.1"))
                .client(c -> c.proxies.add(TunnelExtension.proxyConfig("tcp", app.port(), 0))).start().port("tcp");
        try (Socket visitor = new Socket("127.0.0.1", port, otherLoopbackAddress(), 0)) {
            visitor.setSoTimeout(10_000);
            assertThat(line(visitor.getInputStream())).isEqualTo("banner");
        }
    }

    private static InetAddress otherLoopbackAddress() throws IOException {
        InetAddress other = InetAddress.getByName("127.0.0.2");
        try (Socket probe = new Socket()) {
            probe.bind(new InetSocketAddress(other, 0));
        } catch (IOException e) {
            assumeTrue(false, "127.0.0.2 cannot be bound here: " + e);
        }
        return other;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void theVhostPutsTheNamedVisitorInXForwardedFor(Mode mode) throws Exception {
        WebApp app = tunnel.closeAfterTest(new WebApp("web"));
        ProxyConfig web = TunnelExtension.proxyConfig("web", app.port(), 0);
        web.type = "http";
        web.customDomains = List.of("pp.example.test");
        tunnel.builder().mode(mode).server(c -> {
            c.vhostHTTPPort = vhostPort;
            c.proxyProtocolTrustedIPs = List.of("127.0.0.1");
        }).client(c -> c.proxies.add(web)).start();
        try (Socket balancer = new Socket("127.0.0.1", vhostPort)) {
            balancer.setSoTimeout(10_000);
            balancer.getOutputStream().write(v2("192.0.2.44", 5555, vhostPort));
            balancer.getOutputStream().write(("GET /who HTTP/1.1\r\nHost: pp.example.test\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String response = new String(balancer.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(response).startsWith("HTTP/1.1 200").contains("xff=192.0.2.44 ");
        }
        try (Socket balancer = new Socket("127.0.0.1", vhostPort)) {
            balancer.setSoTimeout(10_000);
            balancer.getOutputStream().write(("GET /who HTTP/1.1\r\nHost: pp.example.test\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            assertThat(readToEnd(balancer.getInputStream())).as("no header: closed with no answer").isEqualTo(-1);
        }
    }

    /** A tcp proxy with a v1 PROXY header to an app that reports the lines it reads; its public port. */
    private int tcpTunnel(Mode mode) throws Exception {
        LocalApp app = tunnel.localApp(socket -> {
            appConnections.incrementAndGet();
            InputStream in = socket.getInputStream();
            for (String line = line(in); line != null; line = line(in)) {
                firstLines.add(line);
            }
        });
        ProxyConfig tcp = TunnelExtension.proxyConfig("tcp", app.port(), 0);
        tcp.transport.proxyProtocolVersion = "v1";
        return tunnel.builder().mode(mode).server(c -> c.proxyProtocolTrustedIPs = List.of("10.0.0.0/8", "127.0.0.1"))
                .client(c -> c.proxies.add(tcp)).start().port("tcp");
    }

    private static byte[] v2(String source, int sourcePort, int port) {
        EmbeddedChannel encoder = new EmbeddedChannel(HAProxyMessageEncoder.INSTANCE);
        try {
            encoder.writeOutbound(new HAProxyMessage(HAProxyProtocolVersion.V2, HAProxyCommand.PROXY,
                    HAProxyProxiedProtocol.TCP4, source, "127.0.0.1", sourcePort, port));
            ByteBuf header = encoder.readOutbound();
            try {
                return ByteBufUtil.getBytes(header);
            } finally {
                header.release();
            }
        } finally {
            encoder.finishAndReleaseAll();
        }
    }

    /** Reads until the end; -1 once the peer closed (a reset counts as closed too). */
    private static int readToEnd(InputStream in) {
        try {
            while (in.read() != -1) {
                // drain
            }
            return -1;
        } catch (java.net.SocketException e) {
            return -1;
        } catch (IOException e) {
            return 0;
        }
    }

    /** A line without its CR LF; null at the end. */
    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return c == -1 && sb.isEmpty() ? null : sb.toString();
    }
}
