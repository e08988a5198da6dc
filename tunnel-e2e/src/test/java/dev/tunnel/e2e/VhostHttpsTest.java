package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.server.config.ServerConfig;
import io.netty.handler.ssl.SslContext;
import java.io.DataInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** frp's https proxy type (routed by SNI, TLS ends at home) and the PROXY protocol, end to end. */
@Timeout(60)
class VhostHttpsTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @TempDir
    Path dir;

    private final int httpsPort = FreePorts.one();

    static ProxyConfig https(String name, int localPort, String... domains) {
        ProxyConfig p = TunnelExtension.proxyConfig(name, localPort, 0);
        p.type = "https";
        p.customDomains = List.of(domains);
        return p;
    }

    private void vhostServer(ServerConfig config) {
        config.vhostHTTPSPort = httpsPort;
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void tlsIsRoutedByServerNameAndEndsAtHome(Mode mode) throws Exception {
        TestPki pki = new TestPki(dir);
        TestPki.Files home = pki.server("home", List.of("secure.example.test"));
        TlsEchoApp app = tunnel.closeAfterTest(new TlsEchoApp(home.serverContext()));
        TestPki.Files other = pki.server("other", List.of("other.example.test"));
        TlsEchoApp otherApp = tunnel.closeAfterTest(new TlsEchoApp(other.serverContext()));
        tunnel.builder().mode(mode).server(this::vhostServer).client(c -> {
            c.proxies.add(https("secure", app.port(), "secure.example.test"));
            c.proxies.add(https("other", otherApp.port(), "*.other.example.test"));
        }).start();
        SSLContext trust = trusting(pki.caFile());
        try (SSLSocket s = tls(trust, "secure.example.test")) {
            X509Certificate seen = (X509Certificate) s.getSession().getPeerCertificates()[0];
            assertThat(seen.getSubjectAlternativeNames().toString()).contains("secure.example.test");
            s.getOutputStream().write("ping\n".getBytes());
            assertThat(new String(s.getInputStream().readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("ping\n");
        }
        try (SSLSocket s = tls(trust, "a.other.example.test")) {
            X509Certificate seen = (X509Certificate) s.getSession().getPeerCertificates()[0];
            assertThat(seen.getSubjectAlternativeNames().toString()).contains("other.example.test");
        }
        assertThatThrownBy(() -> tls(trust, "unknown.example.test").close())
                .as("no proxy for the name: closed before a ServerHello").isInstanceOf(java.io.IOException.class);
    }

    @Test
    void proxyProtocolNamesTheVisitorForTcpAndHttps() throws Exception {
        CompletableFuture<String> tcpHeader = new CompletableFuture<>();
        CompletableFuture<byte[]> httpsStart = new CompletableFuture<>();
        LocalApp tcpApp = tunnel.localApp(socket -> tcpHeader.complete(line(socket.getInputStream())));
        LocalApp tlsApp = tunnel.localApp(socket -> {
            InputStream in = socket.getInputStream();
            byte[] sig = new DataInputStream(in).readNBytes(16);
            int len = ((sig[14] & 0xff) << 8) | (sig[15] & 0xff);
            byte[] rest = in.readNBytes(len + 1);
            byte[] all = new byte[16 + rest.length];
            System.arraycopy(sig, 0, all, 0, 16);
            System.arraycopy(rest, 0, all, 16, rest.length);
            httpsStart.complete(all);
        });
        ProxyConfig tcp = TunnelExtension.proxyConfig("tcp", tcpApp.port(), 0);
        tcp.transport.proxyProtocolVersion = "v1";
        ProxyConfig tls = https("tls", tlsApp.port(), "pp.example.test");
        tls.transport.proxyProtocolVersion = "v2";
        TunnelExtension.Tunnel t = tunnel.builder().server(this::vhostServer).client(c -> {
            c.proxies.add(tcp);
            c.proxies.add(tls);
        }).start();
        int tcpPort = t.port("tcp");
        try (Socket visitor = new Socket("127.0.0.1", tcpPort)) {
            visitor.getOutputStream().write("hello".getBytes());
            String header = tcpHeader.get(10, TimeUnit.SECONDS);
            assertThat(header).isEqualTo("PROXY TCP4 127.0.0.1 127.0.0.1 " + visitor.getLocalPort() + " " + tcpPort);
        }
        SSLContext any = SSLContext.getInstance("TLS");
        any.init(null, io.netty.handler.ssl.util.InsecureTrustManagerFactory.INSTANCE.getTrustManagers(), null);
        CompletableFuture.runAsync(() -> {
            try (SSLSocket s = tls(any, "pp.example.test")) {
                s.close();
            } catch (Exception ignored) {
                // the app never answers the handshake; only its first bytes matter here
            }
        });
        byte[] start = httpsStart.get(10, TimeUnit.SECONDS);
        byte[] signature = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
        assertThat(java.util.Arrays.copyOf(start, 12)).isEqualTo(signature);
        assertThat(start[13]).as("TCP over IPv4").isEqualTo((byte) 0x11);
        assertThat(start[start.length - 1]).as("the ClientHello follows the header").isEqualTo((byte) 0x16);
    }

    private SSLSocket tls(SSLContext context, String serverName) throws Exception {
        Socket raw = new Socket();
        raw.connect(new InetSocketAddress("127.0.0.1", httpsPort), 10_000);
        raw.setSoTimeout(10_000);
        SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(raw, serverName, httpsPort, true);
        SSLParameters params = s.getSSLParameters();
        params.setServerNames(List.of(new SNIHostName(serverName)));
        s.setSSLParameters(params);
        s.startHandshake();
        return s;
    }

    private static SSLContext trusting(Path caFile) throws Exception {
        Certificate ca;
        try (InputStream in = java.nio.file.Files.newInputStream(caFile)) {
            ca = CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        store.setCertificateEntry("ca", ca);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        return context;
    }

    private static String line(InputStream in) throws java.io.IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    /** A TLS app at home: its own certificate, echoes what it reads. */
    static final class TlsEchoApp implements AutoCloseable {
        private final io.netty.channel.EventLoopGroup group = dev.tunnel.protocol.transport.Transports.newGroup(1, "tls-app");
        private final io.netty.channel.Channel server;

        TlsEchoApp(SslContext context) throws InterruptedException {
            server = new io.netty.bootstrap.ServerBootstrap().group(group)
                    .channel(dev.tunnel.protocol.transport.Transports.serverChannel())
                    .childHandler(new io.netty.channel.ChannelInitializer<io.netty.channel.socket.SocketChannel>() {
                        @Override
                        protected void initChannel(io.netty.channel.socket.SocketChannel ch) {
                            ch.pipeline().addLast(context.newHandler(ch.alloc()),
                                    new io.netty.channel.ChannelInboundHandlerAdapter() {
                                        @Override
                                        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                                            ctx.writeAndFlush(msg);
                                        }
                                    });
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
        }

        int port() {
            return ((InetSocketAddress) server.localAddress()).getPort();
        }

        @Override
        public void close() {
            server.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
