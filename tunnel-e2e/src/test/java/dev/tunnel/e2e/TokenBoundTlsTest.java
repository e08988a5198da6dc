package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.tls.CertifiedKey;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The config people write - a server with certFile/keyFile, a client with only serverAddr and
 * auth.token - is verified without any CA: straight it registers, through a TLS terminator
 * holding the server's own certificate it registers, through one holding another certificate
 * (a man in the middle) it refuses, naming the certificate it saw, and with a wrong token it
 * registers nothing. The token never shows up in a log line or an error.
 */
@Timeout(30)
class TokenBoundTlsTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @TempDir
    Path dir;

    private TestPki pki;
    private TestPki.Files serverCert;
    private EchoServer echo;
    private TunnelServer server;

    @BeforeEach
    void startServer() throws Exception {
        pki = new TestPki(dir);
        serverCert = pki.server("server", List.of("localhost", "127.0.0.1"));
        echo = tunnel.echoServer();
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.tls.certFile = serverCert.certPath();
        config.transport.tls.keyFile = serverCert.keyPath();
        server = tunnel.startServer(config);
    }

    /** serverAddr, serverPort, auth.token and one proxy: nothing about certificates. */
    private ClientConfig minimalClient(int port) {
        ClientConfig config = new ClientConfig();
        config.serverAddr = "127.0.0.1";
        config.serverPort = port;
        config.auth.token = TunnelExtension.TOKEN;
        config.proxies.add(TunnelExtension.proxyConfig("echo", echo.port(), 0));
        return config;
    }

    @Test
    void straightToTheServerItRegisters() throws Exception {
        TunnelClient client = tunnel.startClient(minimalClient(server.port()));
        client.firstLogin().get(10, TimeUnit.SECONDS);
        assertEchoes(client.awaitRemotePort("echo", TunnelExtension.LOGIN_TIMEOUT));
    }

    @ParameterizedTest(name = "TLS from the terminator to the server: {0}")
    @ValueSource(booleans = {false, true})
    void throughATerminatorHoldingTheServersOwnCertificateItRegisters(boolean tlsToServer) throws Exception {
        TlsRelay relay = tunnel.closeAfterTest(new TlsRelay(serverCert.serverContext(), server.port(), tlsToServer));
        TunnelClient client = tunnel.startClient(minimalClient(relay.port()));
        client.firstLogin().get(10, TimeUnit.SECONDS);
        assertEchoes(client.awaitRemotePort("echo", TunnelExtension.LOGIN_TIMEOUT));
    }

    @ParameterizedTest(name = "TLS from the interceptor to the server: {0}")
    @ValueSource(booleans = {false, true})
    void throughARelayWithAForeignCertificateItRefusesNamingTheFingerprint(boolean tlsToServer) throws Exception {
        TestPki.Files foreign = pki.foreign("mitm");
        TlsRelay relay = tunnel.closeAfterTest(new TlsRelay(foreign.serverContext(), server.port(), tlsToServer));
        ClientConfig config = minimalClient(relay.port());
        int remotePort = FreePorts.one();
        config.proxies.get(0).remotePort = remotePort;
        TunnelClient client = tunnel.startClient(config);

        assertThatThrownBy(() -> client.firstLogin().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().hasMessageContaining("sha256:" + foreign.key().sha256Fingerprint())
                .hasMessageContaining("certificate mismatch");
        assertThat(client.proxy("echo")).as("no proxy registered").isEmpty();
        assertThat(FreePorts.canBind(remotePort)).as("the requested port was never opened").isTrue();
        assertThat(logs()).contains("TLS certificate mismatch");
    }

    @Test
    void withAWrongTokenItRegistersNothingAndTheTokensStayOutOfLogsAndErrors() throws Exception {
        String wrongToken = "wrong-token-3b1f9c7e";
        ClientConfig config = minimalClient(server.port());
        config.auth.token = wrongToken;
        int remotePort = FreePorts.one();
        config.proxies.get(0).remotePort = remotePort;
        TunnelClient client = tunnel.startClient(config);

        Throwable error = catchFailure(client);
        assertThat(error).hasMessageContaining("authorization failed");
        assertThat(client.proxy("echo")).isEmpty();
        assertThat(FreePorts.canBind(remotePort)).isTrue();
        await(() -> logs().contains("login refused: wrong token"));
        assertThat(logs()).doesNotContain(wrongToken).doesNotContain(TunnelExtension.TOKEN);
        assertThat(error.getMessage()).doesNotContain(wrongToken).doesNotContain(TunnelExtension.TOKEN);
    }

    @Test
    void aPinnedFingerprintAcceptsTheServerAndRefusesAnyOtherCertificate() throws Exception {
        ClientConfig pinned = minimalClient(server.port());
        pinned.transport.tls.serverFingerprint = "sha256:" + serverCert.key().sha256Fingerprint();
        TunnelClient ok = tunnel.startClient(pinned);
        ok.firstLogin().get(10, TimeUnit.SECONDS);

        // The terminator holds the server's own certificate, but the pin names another one.
        TlsRelay relay = tunnel.closeAfterTest(new TlsRelay(serverCert.serverContext(), server.port(), false));
        ClientConfig wrongPin = minimalClient(relay.port());
        CertifiedKey other = pki.foreign("other").key();
        wrongPin.transport.tls.serverFingerprint = other.sha256Fingerprint().replace(":", "").toLowerCase();
        TunnelClient refused = tunnel.startClient(wrongPin);
        assertThat(catchFailure(refused)).hasMessageContaining("does not match transport.tls.serverFingerprint")
                .hasMessageContaining("sha256:" + serverCert.key().sha256Fingerprint());
    }

    @Test
    void aPlainClientStillLogsInWhereTheServerAllowsIt() throws Exception {
        ClientConfig config = minimalClient(server.port());
        config.transport.tls.enable = false;
        TunnelClient client = tunnel.startClient(config);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        assertEchoes(client.awaitRemotePort("echo", TunnelExtension.LOGIN_TIMEOUT));
    }

    static Throwable catchFailure(TunnelClient client) {
        try {
            client.firstLogin().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError("expected the first login to fail, got " + e, e);
        }
        throw new AssertionError("expected the first login to fail, but it succeeded");
    }

    static String logs() {
        return String.join("", CapturedLogs.snapshot());
    }

    static void await(java.util.concurrent.Callable<Boolean> condition) {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(condition);
    }

    private static void assertEchoes(int port) throws Exception {
        byte[] data = "through the tunnel".getBytes(StandardCharsets.UTF_8);
        assertThat(PublicClient.roundTrip(port, data)).isEqualTo(Payloads.summary(data));
    }
}
