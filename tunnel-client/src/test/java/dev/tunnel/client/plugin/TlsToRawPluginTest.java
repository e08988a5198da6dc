package dev.tunnel.client.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.PluginConfig;
import dev.tunnel.protocol.transport.Transports;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The tls2raw plugin: TLS from the visitor, plain bytes to localAddr. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsToRawPluginTest {
    private static EventLoopGroup group;
    private LocalPlugin plugin;
    private Targets echo;

    @BeforeAll
    static void startGroup() {
        group = Transports.newGroup(1, "tls2raw-test");
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @BeforeEach
    void start() throws Exception {
        echo = Targets.echo();
        PluginConfig config = new PluginConfig();
        config.type = "tls2raw";
        config.localAddr = "127.0.0.1:" + echo.port();
        plugin = LocalPlugins.start(config, group);
    }

    @AfterEach
    void stop() throws IOException {
        plugin.close();
        echo.close();
    }

    private InetSocketAddress address() {
        return ((LoopbackServer) plugin).localAddress();
    }

    @Test
    void decryptedBytesReachLocalAddrAndTheAnswerGoesBackEncrypted() throws Exception {
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, new TrustManager[] {new TrustEverything()}, new SecureRandom());
        try (SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket(address().getAddress(), address().getPort())) {
            s.setSoTimeout(10_000);
            s.startHandshake();
            assertThat(((X509Certificate) s.getSession().getPeerCertificates()[0]).getSubjectX500Principal()).isNotNull();
            s.getOutputStream().write("through tls".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            byte[] back = s.getInputStream().readNBytes("through tls".length());
            assertThat(new String(back, StandardCharsets.US_ASCII)).isEqualTo("through tls");
        }
    }

    @Test
    void plaintextIsClosedWithoutReachingLocalAddr() throws Exception {
        try (Socket s = new Socket(address().getAddress(), address().getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] rest;
            try {
                rest = s.getInputStream().readAllBytes();
            } catch (java.net.SocketException reset) {
                rest = new byte[0];
            }
            assertThat(new String(rest, StandardCharsets.ISO_8859_1)).doesNotContain("GET /");
        }
    }

    /** The plugin's certificate is self-signed (no crtPath): the test trusts it as curl -k does. */
    private static final class TrustEverything implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
