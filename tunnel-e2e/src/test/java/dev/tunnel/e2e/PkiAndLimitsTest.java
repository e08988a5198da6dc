package dev.tunnel.e2e;

import static dev.tunnel.e2e.TokenBoundTlsTest.await;
import static dev.tunnel.e2e.TokenBoundTlsTest.catchFailure;
import static dev.tunnel.e2e.TokenBoundTlsTest.logs;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.PortRange;
import dev.tunnel.server.config.ServerConfig;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificates for people who want PKI (a CA-verified server with host name checks, client
 * certificates), per-user tokens and port rules, and the abuse limits: failed-login backoff,
 * the login timeout, and the stream limit.
 */
@Timeout(30)
class PkiAndLimitsTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @TempDir
    Path dir;

    @Test
    void clientVerifiesTheServerWithTrustedCaFileAndChecksTheServerName() throws Exception {
        TestPki pki = new TestPki(dir);
        TestPki.Files cert = pki.server("server", List.of("vps.example", "127.0.0.1"));
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(withCert(cert));

        ClientConfig byIp = client(server, echo);
        byIp.transport.tls.trustedCaFile = pki.caFile().toString();
        tunnel.startClient(byIp).firstLogin().get(10, TimeUnit.SECONDS);

        ClientConfig byName = client(server, echo);
        byName.transport.tls.trustedCaFile = pki.caFile().toString();
        byName.transport.tls.serverName = "vps.example";
        tunnel.startClient(byName).firstLogin().get(10, TimeUnit.SECONDS);

        ClientConfig wrongName = client(server, echo);
        wrongName.transport.tls.trustedCaFile = pki.caFile().toString();
        wrongName.transport.tls.serverName = "other.example";
        assertThat(catchFailure(tunnel.startClient(wrongName))).hasMessageContaining("TLS");
    }

    @Test
    void serverWithTrustedCaFileRequiresAClientCertificate() throws Exception {
        TestPki pki = new TestPki(dir);
        TestPki.Files cert = pki.server("server", List.of("127.0.0.1"));
        TestPki.Files home = pki.client("home");
        EchoServer echo = tunnel.echoServer();
        ServerConfig config = withCert(cert);
        config.transport.tls.trustedCaFile = pki.caFile().toString();
        config.transport.tls.force = true;
        TunnelServer server = tunnel.startServer(config);

        ClientConfig withCertificate = client(server, echo);
        withCertificate.transport.tls.certFile = home.certPath();
        withCertificate.transport.tls.keyFile = home.keyPath();
        withCertificate.transport.tls.trustedCaFile = pki.caFile().toString();
        TunnelClient ok = tunnel.startClient(withCertificate);
        ok.firstLogin().get(10, TimeUnit.SECONDS);
        assertEchoes(ok.awaitRemotePort("echo", TunnelExtension.LOGIN_TIMEOUT));

        ClientConfig without = client(server, echo);
        without.proxies.get(0).name = "echo2";
        assertThat(catchFailure(tunnel.startClient(without))).isNotNull();
    }

    @Test
    void usersHaveTheirOwnTokensPortRulesAndProxyNamespaces() throws Exception {
        EchoServer echo = tunnel.echoServer();
        int alicePort = FreePorts.one();
        ServerConfig config = TunnelExtension.serverConfig();
        config.auth.token = ""; // only listed users may log in
        config.users.add(user("alice", "alice-secret", alicePort));
        config.users.add(user("bob", "bob-secret", 0));
        TunnelServer server = tunnel.startServer(config);

        TunnelClient alice = tunnel.startClient(asUser(server, echo, "alice", "alice-secret", 0));
        TunnelClient bob = tunnel.startClient(asUser(server, echo, "bob", "bob-secret", 0));
        alice.firstLogin().get(10, TimeUnit.SECONDS);
        bob.firstLogin().get(10, TimeUnit.SECONDS);
        int a = alice.awaitRemotePort("web", TunnelExtension.LOGIN_TIMEOUT);
        int b = bob.awaitRemotePort("web", TunnelExtension.LOGIN_TIMEOUT);
        assertThat(a).as("alice's allowPorts").isEqualTo(alicePort);
        assertThat(b).isNotEqualTo(a);
        assertEchoes(a);
        assertEchoes(b);

        // Bob cannot take alice's port, and bob's token does not open alice's account.
        ClientConfig bobAgain = asUser(server, echo, "bob", "bob-secret", alicePort);
        bobAgain.proxies.get(0).name = "web2"; // bob.web is taken by his first client (one name per user, as frp)
        TunnelClient bobTakesAlicesPort = tunnel.startClient(bobAgain);
        bobTakesAlicesPort.firstLogin().get(10, TimeUnit.SECONDS);
        await(() -> bobTakesAlicesPort.proxy("web2").isPresent());
        assertThat(bobTakesAlicesPort.proxy("web2").orElseThrow().error()).contains("already used by another proxy");
        assertThat(catchFailure(tunnel.startClient(asUser(server, echo, "alice", "bob-secret", 0))))
                .hasMessageContaining("authorization failed");
        assertThat(catchFailure(tunnel.startClient(asUser(server, echo, "", "", 0))))
                .as("no shared token: anonymous clients are refused").hasMessageContaining("authorization failed");
        assertEchoes(a);
        assertThat(logs()).contains("alice.web").contains("bob.web").doesNotContain("alice-secret");
    }

    @Test
    void repeatedFailedLoginsBlockTheAddressForAWhile() throws Exception {
        ServerConfig config = TunnelExtension.serverConfig();
        config.auth.maxFailedLogins = 2;
        config.auth.failedLoginBlockSeconds = 60;
        TunnelServer server = tunnel.startServer(config);
        EchoServer echo = tunnel.echoServer();
        for (int i = 0; i < 2; i++) {
            ClientConfig wrong = client(server, echo);
            wrong.auth.token = "guess-" + i;
            assertThat(catchFailure(tunnel.startClient(wrong))).hasMessageContaining("authorization failed");
        }
        assertThat(logs()).contains("too many failed logins from /127.0.0.1");
        ClientConfig right = client(server, echo);
        assertThat(catchFailure(tunnel.startClient(right))).as("even the right token waits out the block")
                .hasMessageContaining("closed the connection before answering");
    }

    @Test
    void aConnectionThatNeverFinishesTlsOrLoginIsClosedAfterTheLoginTimeout() throws Exception {
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.loginTimeout = 1;
        config.transport.tls.force = true;
        TunnelServer server = tunnel.startServer(config);
        try (Socket idle = new Socket("127.0.0.1", server.port())) {
            idle.setSoTimeout(5_000);
            long start = System.nanoTime();
            InputStream in = idle.getInputStream();
            assertThat(in.read()).as("closed by the server").isEqualTo(-1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(500L, 4_000L);
        }
        await(() -> logs().contains("transport.loginTimeout; stuck in TLS handshake"));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.EnumSource(TunnelExtension.Mode.class)
    void publicConnectionsBeyondMaxStreamsPerClientAreRefused(TunnelExtension.Mode mode) throws Exception {
        LocalApp silent = tunnel.localApp(socket -> socket.getInputStream().transferTo(java.io.OutputStream.nullOutputStream()));
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode).server(c -> c.transport.maxStreamsPerClient = 2)
                .proxy("app", silent.port()).start();
        int port = t.port("app");
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Socket s = new Socket("127.0.0.1", port);
                s.getOutputStream().write(1);
                open.add(s);
            }
            try (Socket third = new Socket("127.0.0.1", port)) {
                third.setSoTimeout(5_000);
                assertThat(readOrReset(third)).as("refused: closed at once").isEqualTo(-1);
            }
            await(() -> logs().contains("transport.maxStreamsPerClient = 2"));
        } finally {
            for (Socket s : open) {
                s.close();
            }
        }
    }

    private static int readOrReset(Socket s) throws Exception {
        try {
            return s.getInputStream().read();
        } catch (java.net.SocketException reset) {
            return -1;
        }
    }

    private static ServerConfig.User user(String name, String token, int onlyPort) {
        ServerConfig.User u = new ServerConfig.User();
        u.name = name;
        u.token = token;
        if (onlyPort != 0) {
            u.allowPorts.add(new PortRange(0, 0, onlyPort));
        }
        return u;
    }

    private ClientConfig asUser(TunnelServer server, EchoServer echo, String user, String token, int remotePort) {
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.user = user;
        config.auth.token = token;
        config.proxies.add(TunnelExtension.proxyConfig("web", echo.port(), remotePort));
        return config;
    }

    private static ServerConfig withCert(TestPki.Files cert) {
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.tls.certFile = cert.certPath();
        config.transport.tls.keyFile = cert.keyPath();
        return config;
    }

    private static ClientConfig client(TunnelServer server, EchoServer echo) {
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.proxies.add(TunnelExtension.proxyConfig("echo", echo.port(), 0));
        return config;
    }

    private static void assertEchoes(int port) throws Exception {
        byte[] data = "through the tunnel".getBytes(StandardCharsets.UTF_8);
        assertThat(PublicClient.roundTrip(port, data)).isEqualTo(Payloads.summary(data));
    }
}
