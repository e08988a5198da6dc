package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.PakeChallenge;
import dev.tunnel.protocol.ControlMessage.PakeHello;
import dev.tunnel.protocol.ControlMessage.PakeShare;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.auth.TokenVerifier;
import dev.tunnel.protocol.testing.ControlWire;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PAKE login between a real server and client: a server holding only a token verifier lets
 * the right token in (mux and pool mode) and not a wrong one, nor a client that only has the token
 * login; a client falls back to the token login where the server has the PAKE login off, unless it
 * requires it; and a man in the middle with its own certificate records nothing that lets it test
 * a token guess without a new login.
 */
@Timeout(60)
class PakeLoginEndToEndTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @TempDir
    Path dir;

    private ServerConfig verifierOnly(boolean tcpMux) {
        ServerConfig config = TunnelExtension.serverConfig();
        config.auth.token = "";
        config.auth.tokenVerifier = TokenVerifier.create(TunnelExtension.TOKEN).format();
        config.transport.tcpMux = tcpMux;
        return config;
    }

    private ClientConfig client(TunnelServer server, int echoPort, boolean tcpMux) {
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.transport.tcpMux = tcpMux;
        config.proxies.add(TunnelExtension.proxyConfig("echo", echoPort, 0));
        return config;
    }

    @Test
    void aServerHoldingOnlyAVerifierLetsTheRightTokenInAndCarriesItsStreams() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(verifierOnly(true));
        TunnelClient client = tunnel.startClient(client(server, echo.port(), true));
        client.firstLogin().get(10, TimeUnit.SECONDS);
        assertEchoes(client.awaitRemotePort("echo", TunnelExtension.LOGIN_TIMEOUT));
    }

    @Test
    void inPoolModeItsWorkConnectionsProveTheSessionWithoutTheToken() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(verifierOnly(false));
        TunnelClient client = tunnel.startClient(client(server, echo.port(), false));
        client.firstLogin().get(10, TimeUnit.SECONDS);
        int port = client.awaitRemotePort("echo", TunnelExtension.LOGIN_TIMEOUT);
        for (int i = 0; i < 3; i++) {
            assertEchoes(port);
        }
    }

    @Test
    void aServerHoldingOnlyAVerifierRefusesAWrongTokenAndATokenLoginClient() throws Exception {
        TunnelServer server = tunnel.startServer(verifierOnly(true));
        ClientConfig wrong = TunnelExtension.clientConfig(server, true);
        wrong.auth.token = "wrong-token-8c1d";
        assertThat(TokenBoundTlsTest.catchFailure(tunnel.startClient(wrong)))
                .hasMessageContaining("authorization failed");

        ClientConfig old = TunnelExtension.clientConfig(server, true);
        old.auth.pake = "off";
        assertThat(TokenBoundTlsTest.catchFailure(tunnel.startClient(old)))
                .hasMessageContaining("only a token verifier").hasMessageContaining("auth.pake");
    }

    @Test
    void whereTheServerHasThePakeLoginOffAPreferringClientFallsBackAndARequiringOneRefuses() throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig config = TunnelExtension.serverConfig();
        config.auth.pake = "off";
        TunnelServer server = tunnel.startServer(config);

        TunnelClient preferring = tunnel.startClient(client(server, echo.port(), true));
        preferring.firstLogin().get(10, TimeUnit.SECONDS);
        assertEchoes(preferring.awaitRemotePort("echo", TunnelExtension.LOGIN_TIMEOUT));

        ClientConfig requiring = TunnelExtension.clientConfig(server, true);
        requiring.auth.pake = "required";
        assertThat(TokenBoundTlsTest.catchFailure(tunnel.startClient(requiring)))
                .hasMessageContaining("auth.pake = \"off\"")
                .hasMessageContaining("auth.pake = \"required\" here");
    }

    @Test
    void whereTheServerRequiresThePakeLoginATokenLoginClientIsRefused() throws Exception {
        ServerConfig config = TunnelExtension.serverConfig();
        config.auth.pake = "required";
        TunnelServer server = tunnel.startServer(config);
        ClientConfig old = TunnelExtension.clientConfig(server, true);
        old.auth.pake = "off";
        assertThat(TokenBoundTlsTest.catchFailure(tunnel.startClient(old)))
                .hasMessageContaining("requires the PAKE login (auth.pake = \"required\")");
    }

    /**
     * A man in the middle terminates the client's TLS with its own certificate and relays the
     * connection to the real server, recording every byte in the clear. The PAKE transcript it
     * gets is exactly:
     * <ul>
     *   <li>client to server: the preface; {@code PAKE_HELLO(user)}; {@code PAKE_SHARE(X)};
     *   {@code LOGIN} with the client nonce {@code cn}, the proof {@code confirmP =
     *   HMAC(K_confirmP, Y)}, the fingerprint of the certificate the client saw (the middleman's),
     *   its version, host name, run id, mode, window, capabilities and options; then its
     *   {@code NEW_PROXY} messages;</li>
     *   <li>server to client: the preface; {@code CHALLENGE(sn)}; {@code PAKE_CHALLENGE(salt, Y)};
     *   {@code LOGIN_RESULT} refusing the login (the proof covers the middleman's certificate).</li>
     * </ul>
     * {@code X = x·P + w0·M} and {@code Y = y·P + w0·N} hide the scalars {@code x} and {@code y}
     * that only the two ends know; the confirmation key comes from {@code Z = x·y·P} and
     * {@code V = y·w1·P} (RFC 9383), so for a guess of the token the middleman can strip
     * {@code w0·M} from {@code X} to get a candidate {@code x·P}, but turning it and {@code y·P}
     * into {@code Z} needs {@code x} or {@code y} (a discrete logarithm) or a Diffie-Hellman oracle:
     * no value here lets a guess be tested offline, and each guess costs a live login. The test runs
     * a dictionary holding the right token against the transcript with every check that needs no
     * scalar (the token login's proof for each certificate, the guess's {@code w0} and {@code L}
     * and hash in any recorded field), and finds nothing; the same attack on the token login's
     * transcript, recorded the same way, finds the token.
     */
    @Test
    void aManInTheMiddleRecordsNoValueThatLetsItTestATokenGuessOffline() throws Exception {
        TestPki pki = new TestPki(dir);
        TestPki.Files serverCert = pki.server("server", List.of("localhost", "127.0.0.1"));
        TestPki.Files mitmCert = pki.foreign("mitm");
        ServerConfig config = TunnelExtension.serverConfig();
        config.transport.tls.certFile = serverCert.certPath();
        config.transport.tls.keyFile = serverCert.keyPath();
        TunnelServer server = tunnel.startServer(config);
        ChannelBinding mitm = ChannelBinding.parse("sha256:" + mitmCert.key().sha256Fingerprint());
        ChannelBinding real = ChannelBinding.parse("sha256:" + serverCert.key().sha256Fingerprint());
        List<String> dictionary = List.of("123456", "password", "letmein", TunnelExtension.TOKEN, "tunnel");

        TlsRelay.Recording pake = record(mitmCert, server, "preferred");
        List<ControlMessage> up = ControlWire.decode(pake.toServer(), true);
        List<ControlMessage> down = ControlWire.decode(pake.toClient(), true);
        assertThat(up).extracting(m -> (Object) m.getClass()).containsExactly(PakeHello.class, PakeShare.class, Login.class,
                NewProxy.class);
        assertThat(down).extracting(m -> (Object) m.getClass())
                .containsExactly(Challenge.class, PakeChallenge.class, LoginResult.class);
        PakeHello hello = (PakeHello) up.get(0);
        PakeShare share = (PakeShare) up.get(1);
        Login login = (Login) up.get(2);
        Challenge challenge = (Challenge) down.get(0);
        PakeChallenge pakeChallenge = (PakeChallenge) down.get(1);
        assertThat(login.capabilities()).contains(Capabilities.PAKE_LOGIN);
        assertThat(login.serverCertificate()).isEqualTo(mitm.fingerprint());
        assertThat(((LoginResult) down.get(2)).error()).contains("certificate mismatch");
        assertThat(hello.user()).isEqualTo(login.user());
        String recorded = String.join("\n", share.clientShare(), login.proof(), login.nonce(), challenge.serverNonce(),
                pakeChallenge.salt(), pakeChallenge.serverShare(), new String(pake.toServer(), StandardCharsets.ISO_8859_1),
                new String(pake.toClient(), StandardCharsets.ISO_8859_1));
        byte[] salt = Base64.getDecoder().decode(pakeChallenge.salt());
        for (String guess : dictionary) {
            for (ChannelBinding cb : List.of(mitm, real, ChannelBinding.none())) {
                assertThat(LoginProof.client(guess, login.user(), challenge.serverNonce(), login.nonce(), cb))
                        .as("the token login's proof for guess %s", guess).isNotEqualTo(login.proof());
            }
            String[] verifier = TokenVerifier.derive(guess, salt).format().split(":");
            String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(guess.getBytes(StandardCharsets.UTF_8)));
            assertThat(recorded).doesNotContain(verifier[2]).doesNotContain(verifier[3]).doesNotContain(hash)
                    .doesNotContain(guess + "\n");
        }
        assertThat(new String(pake.toServer(), StandardCharsets.ISO_8859_1)).doesNotContain(TunnelExtension.TOKEN);

        // The same recording of the token login gives the token away to the same dictionary.
        TlsRelay.Recording token = record(mitmCert, server, "off");
        Login tokenLogin = (Login) ControlWire.decode(token.toServer(), true).get(0);
        String sn = ((Challenge) ControlWire.decode(token.toClient(), true).get(0)).serverNonce();
        Optional<String> found = dictionary.stream()
                .filter(g -> LoginProof.client(g, "", sn, tokenLogin.nonce(), mitm).equals(tokenLogin.proof()))
                .findFirst();
        assertThat(found).contains(TunnelExtension.TOKEN);
    }

    /** One login of a client with {@code auth.pake = pake} through a recording middleman with {@code cert}. */
    private TlsRelay.Recording record(TestPki.Files cert, TunnelServer server, String pake) throws Exception {
        TlsRelay.Recording recording = new TlsRelay.Recording();
        TlsRelay relay = tunnel.closeAfterTest(new TlsRelay(cert.serverContext(), server.port(), false, recording));
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.serverPort = relay.port();
        config.auth.pake = pake;
        config.proxies.add(TunnelExtension.proxyConfig("echo", FreePorts.one(), 0));
        assertThat(TokenBoundTlsTest.catchFailure(tunnel.startClient(config))).hasMessageContaining("certificate mismatch");
        return recording;
    }

    private static void assertEchoes(int port) throws Exception {
        byte[] data = "through the tunnel".getBytes(StandardCharsets.UTF_8);
        assertThat(PublicClient.roundTrip(port, data)).isEqualTo(Payloads.summary(data));
    }
}
