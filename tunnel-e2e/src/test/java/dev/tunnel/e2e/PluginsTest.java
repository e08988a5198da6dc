package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.PluginConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.e2e.TunnelExtension.Tunnel;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The client plugins behind a real tunnel, in both transport modes: a public connection reaches
 * the plugin, and the plugin reaches the app (an echo server, a Unix socket) with bytes intact.
 */
@Timeout(60)
class PluginsTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @TempDir
    Path dir;

    private static ProxyConfig pluginProxy(String name, String type) {
        ProxyConfig proxy = new ProxyConfig();
        proxy.name = name;
        proxy.plugin = new PluginConfig();
        proxy.plugin.type = type;
        if (type.equals("http_proxy") || type.equals("socks5")) {
            proxy.plugin.allowDestinations = java.util.List.of("127.0.0.1"); // the test targets listen on loopback
        }
        return proxy;
    }

    private Tunnel start(Mode mode, ProxyConfig proxy) throws Exception {
        return tunnel.builder().mode(mode).client(c -> c.proxies.add(proxy)).start();
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void httpProxyConnectThroughTheTunnel(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        ProxyConfig proxy = pluginProxy("hp", "http_proxy");
        proxy.plugin.httpUser = "u";
        proxy.plugin.httpPassword = "p";
        Tunnel t = start(mode, proxy);
        try (Socket s = new Socket("127.0.0.1", t.port("hp"))) {
            s.setSoTimeout(20_000);
            String auth = Base64.getEncoder().encodeToString("u:p".getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().write(("CONNECT 127.0.0.1:" + echo.port() + " HTTP/1.1\r\nProxy-Authorization: Basic "
                    + auth + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(head(s.getInputStream())).startsWith("HTTP/1.1 200 ");
            byte[] data = Payloads.random(500_000, 5);
            s.getOutputStream().write(data);
            s.shutdownOutput();
            assertThat(Payloads.drain(s.getInputStream())).isEqualTo(Payloads.summary(data));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void socks5ConnectThroughTheTunnel(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        ProxyConfig proxy = pluginProxy("socks", "socks5");
        Tunnel t = start(mode, proxy);
        try (Socket s = new Socket("127.0.0.1", t.port("socks"))) {
            s.setSoTimeout(20_000);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write(new byte[] {5, 1, 0});
            byte[] greeting = new byte[2];
            in.readFully(greeting);
            assertThat(greeting).containsExactly(5, 0);
            out.write(new byte[] {5, 1, 0, 1, 127, 0, 0, 1, (byte) (echo.port() >> 8), (byte) echo.port()});
            byte[] reply = new byte[10];
            in.readFully(reply);
            assertThat(reply[1]).as("reply code").isEqualTo((byte) 0);
            byte[] data = Payloads.random(500_000, 6);
            out.write(data);
            s.shutdownOutput();
            assertThat(Payloads.drain(in)).isEqualTo(Payloads.summary(data));
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void unixDomainSocketThroughTheTunnel(Mode mode) throws Exception {
        Path socket = dir.resolve("app.sock");
        try (ServerSocketChannel app = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            app.bind(UnixDomainSocketAddress.of(socket));
            Thread echo = new Thread(() -> {
                try (SocketChannel conn = app.accept()) {
                    ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
                    while (conn.read(buf) >= 0) {
                        buf.flip();
                        while (buf.hasRemaining()) {
                            conn.write(buf);
                        }
                        buf.clear();
                    }
                } catch (IOException ignored) {
                    // the test's assertion reports it
                }
            }, "uds-echo");
            echo.setDaemon(true);
            echo.start();
            ProxyConfig proxy = pluginProxy("uds", "unix_domain_socket");
            proxy.plugin.unixPath = socket.toString();
            Tunnel t = start(mode, proxy);
            byte[] data = Payloads.random(700_000, 7);
            assertThat(PublicClient.roundTrip(t.port("uds"), data)).isEqualTo(Payloads.summary(data));
        }
    }

    private static String head(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }
}
