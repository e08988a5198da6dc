package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.config.VisitorConfig;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code stcp} and {@code sudp} with {@code [[visitors]]} on a second client: the right key
 * reaches the provider's app through the server's splice, bytes intact; a wrong key, an unknown
 * name or a user not allowed is refused with a log line on both sides and reaches nothing;
 * repeated wrong keys are throttled.
 */
@Timeout(60)
class SecretProxyTest {
    private static final String KEY = "abcdefg";

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private TunnelServer server(int maxFailed) throws Exception {
        ServerConfig config = TunnelExtension.serverConfig();
        config.auth.maxFailedLogins = maxFailed;
        ServerConfig.User alice = new ServerConfig.User();
        alice.name = "alice";
        alice.token = "alice-token";
        ServerConfig.User bob = new ServerConfig.User();
        bob.name = "bob";
        bob.token = "bob-token";
        config.users.add(alice);
        config.users.add(bob);
        return tunnel.startServer(config);
    }

    private TunnelClient provider(TunnelServer server, String type, int localPort, List<String> allowUsers)
            throws Exception {
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.user = "alice";
        config.auth.token = "alice-token";
        ProxyConfig p = TunnelExtension.proxyConfig("secret", localPort, 0);
        p.type = type;
        p.secretKey = KEY;
        p.allowUsers = allowUsers;
        config.proxies.add(p);
        TunnelClient client = tunnel.startClient(config);
        client.awaitRemotePort("secret", TunnelExtension.LOGIN_TIMEOUT);
        return client;
    }

    /** A visitor client; returns its local port once it listens. */
    private int visitor(TunnelServer server, String user, String type, String serverName, String key) throws Exception {
        int port = FreePorts.one();
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.user = user;
        config.auth.token = user + "-token";
        VisitorConfig v = new VisitorConfig();
        v.name = "v";
        v.type = type;
        v.serverUser = "alice";
        v.serverName = serverName;
        v.secretKey = key;
        v.bindPort = port;
        config.visitors.add(v);
        TunnelClient client = tunnel.startClient(config);
        client.firstLogin().get(TunnelExtension.LOGIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        awaitLog("visitor [v] (" + type + " to alice." + serverName + ") listening on 127.0.0.1:" + port);
        return port;
    }

    private static void awaitLog(String text) {
        await(text).atMost(Duration.ofSeconds(10))
                .until(() -> CapturedLogs.snapshot().stream().anyMatch(line -> line.contains(text)));
    }

    @Test
    void theRightKeyReachesTheProvidersAppAndEveryByteComesBack() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = server(5);
        provider(server, "stcp", echo.port(), List.of("bob"));
        int port = visitor(server, "bob", "stcp", "secret", KEY);
        byte[] payload = new byte[4 * 1024 * 1024];
        new Random(1).nextBytes(payload);
        for (int i = 0; i < 3; i++) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                s.setSoTimeout(20_000);
                byte[] back = echo(s, payload);
                assertThat(sha256(back)).isEqualTo(sha256(payload));
            }
        }
    }

    @Test
    void aWrongKeyIsRefusedOnBothSidesAndReachesNothing() throws Exception {
        LocalApp app = tunnel.localApp(socket -> {
            throw new AssertionError("a visitor with a wrong key reached the app");
        });
        TunnelServer server = server(5);
        provider(server, "stcp", app.port(), List.of("*"));
        int port = visitor(server, "bob", "stcp", "secret", "guess");
        assertClosedWithoutAnswer(port);
        awaitLog("to stcp proxy [alice.secret] refused: wrong secretKey");
        awaitLog("visitor [v] (stcp to alice.secret) connection from");
        awaitLog("refused by the server: wrong secretKey");
        assertThat(app.errors()).as("connections that reached the app").isEmpty();
    }

    @Test
    void anUnknownServerNameIsRefusedOnBothSides() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = server(5);
        provider(server, "stcp", echo.port(), List.of("*"));
        int port = visitor(server, "bob", "stcp", "nope", KEY);
        assertClosedWithoutAnswer(port);
        awaitLog("refused: no stcp proxy [alice.nope] is registered");
        awaitLog("refused by the server: no such secret proxy on the server");
    }

    @Test
    void aUserNotInAllowUsersIsRefusedOnBothSides() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = server(5);
        provider(server, "stcp", echo.port(), List.of()); // only alice's own visitors
        int port = visitor(server, "bob", "stcp", "secret", KEY);
        assertClosedWithoutAnswer(port);
        awaitLog("user \"bob\" is not in its allowUsers (only its own user)");
        awaitLog("refused by the server: this user is not in the proxy's allowUsers");
    }

    @Test
    void repeatedWrongKeysAreThrottledLikeLogins() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = server(2);
        provider(server, "stcp", echo.port(), List.of("*"));
        int port = visitor(server, "bob", "stcp", "secret", "guess");
        for (int i = 0; i < 3; i++) {
            assertClosedWithoutAnswer(port);
        }
        awaitLog("too many wrong visitor secret keys from /127.0.0.1");
        awaitLog("refused by the server: too many wrong secret keys from this address");
    }

    @Test
    void sudpCarriesDatagramsBetweenVisitorAndProvider() throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        TunnelServer server = server(5);
        provider(server, "sudp", echo.port(), List.of("*"));
        int port = visitor(server, "bob", "sudp", "secret", KEY);
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            s.setSoTimeout(2000);
            InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            int back = 0;
            for (int i = 0; i < 200; i++) {
                byte[] d = new byte[1200];
                new Random(i).nextBytes(d);
                s.send(new DatagramPacket(d, d.length, target));
                byte[] buf = new byte[2048];
                DatagramPacket in = new DatagramPacket(buf, buf.length);
                s.receive(in);
                if (in.getLength() == 1200 && java.util.Arrays.equals(java.util.Arrays.copyOf(buf, 1200), d)) {
                    back++;
                }
            }
            assertThat(back).isEqualTo(200);
        }
    }

    @Test
    void sudpWithAWrongKeyIsRefusedOnBothSides() throws Exception {
        UdpEcho echo = tunnel.closeAfterTest(new UdpEcho());
        TunnelServer server = server(5);
        provider(server, "sudp", echo.port(), List.of("*"));
        int port = visitor(server, "bob", "sudp", "secret", "guess");
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            byte[] d = "hello".getBytes();
            s.send(new DatagramPacket(d, d.length, new InetSocketAddress(InetAddress.getLoopbackAddress(), port)));
        }
        awaitLog("to sudp proxy [alice.secret] refused: wrong secretKey");
        awaitLog("refused by the server: wrong secretKey");
        assertThat(echo.sources()).isEmpty();
    }

    private static void assertClosedWithoutAnswer(int port) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            int read;
            try {
                // A refused connection may be reset before this write gets out (a busy machine
                // lets the refusal overtake it): that is a close without an answer too.
                s.getOutputStream().write("hello".getBytes());
                read = s.getInputStream().read();
            } catch (IOException reset) {
                read = -1;
            }
            assertThat(read).as("what a refused visitor connection reads").isEqualTo(-1);
        }
    }

    private static byte[] echo(Socket s, byte[] payload) throws Exception {
        OutputStream out = s.getOutputStream();
        InputStream in = s.getInputStream();
        Thread writer = new Thread(() -> {
            try {
                out.write(payload);
                s.shutdownOutput();
            } catch (IOException ignored) {
                // the reader sees it
            }
        });
        writer.start();
        byte[] back = in.readAllBytes();
        writer.join();
        return back;
    }

    private static byte[] sha256(byte[] b) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(b);
    }
}
