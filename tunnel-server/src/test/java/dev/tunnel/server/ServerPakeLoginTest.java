package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.PakeChallenge;
import dev.tunnel.protocol.ControlMessage.PakeHello;
import dev.tunnel.protocol.ControlMessage.PakeShare;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.auth.PakeClient;
import dev.tunnel.protocol.auth.PakeKeys;
import dev.tunnel.protocol.auth.Ephemerals;
import dev.tunnel.protocol.auth.PakeWorker;
import dev.tunnel.protocol.auth.VerifierEphemerals;
import dev.tunnel.protocol.auth.TokenVerifier;
import dev.tunnel.server.config.ServerConfig;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server's half of the PAKE login on EmbeddedChannels, the client's played with
 * {@link PakeClient}: right and wrong token, a server holding only a verifier, replay, downgrade to
 * the token login where the PAKE login is required, certificate binding.
 */
@Timeout(20)
class ServerPakeLoginTest {
    private static final String TOKEN = ServerLoginHarness.TOKEN;
    private static final ChannelBinding OWN = ServerLoginHarness.OWN;

    /** One PAKE login as a client runs it, up to the server's result. */
    static final class Exchange {
        final EmbeddedChannel ch;
        final List<ControlMessage> seen = new ArrayList<>();
        String serverNonce;
        PakeChallenge challenge;
        PakeShare share;
        Login login;
        PakeKeys keys;
        LoginResult result;

        Exchange(EmbeddedChannel ch) {
            this.ch = ch;
        }

        /** Sends the preface and the hello for {@code user}; waits for the challenge and the PAKE challenge. */
        Exchange hello(PakeClient client, String user) {
            ServerLoginHarness.send(ch, concat(ServerLoginTest.preface(),
                    ServerLoginHarness.encode(new PakeHello(user))));
            seen.addAll(ServerLoginHarness.received(ch, true)); // the harness computes at once (PakeWorker.inline)
            assertThat(seen).hasSize(2);
            serverNonce = ((Challenge) seen.get(0)).serverNonce();
            challenge = (PakeChallenge) seen.get(1);
            return this;
        }

        /** Sends the share and the login proven with {@code client}'s secret for {@code binding}; waits for the result. */
        LoginResult login(PakeClient client, String user, ChannelBinding binding) {
            String clientNonce = LoginProof.newNonce();
            keys = client.finish(challenge.salt(), challenge.serverShare()).keys(user, serverNonce, clientNonce, binding);
            share = new PakeShare(client.clientShare());
            login = new Login("t", "host", "run", 0, clientNonce, keys.clientProof(), true, 1, 262_144, user,
                    binding.fingerprint(), List.of("options", "proxies.live", Capabilities.PAKE_LOGIN), Options.EMPTY);
            return send(share, login);
        }

        /** Sends {@code share} (if not null) and {@code message} in one read, as the client flushes them. */
        LoginResult send(PakeShare share, Login message) {
            byte[] login = ServerLoginHarness.encode(message);
            ServerLoginHarness.send(ch, share == null ? login : concat(ServerLoginHarness.encode(share), login));
            seen.addAll(ServerLoginHarness.received(ch, false));
            result = (LoginResult) seen.stream().filter(m -> m instanceof LoginResult).findFirst().orElseThrow();
            return result;
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static ServerConfig config(String pake) {
        ServerConfig config = new ServerConfig();
        config.auth.token = TOKEN;
        config.auth.pake = pake;
        return config;
    }

    private static ServerConfig verifierOnly() {
        ServerConfig config = new ServerConfig();
        config.auth.tokenVerifier = TokenVerifier.create(TOKEN).format();
        return config;
    }

    @Test
    void theRightTokenLogsInAndTheServerProvesItKnowsIt() {
        Exchange x = new Exchange(new ServerLoginHarness().connection());
        PakeClient client = PakeClient.start(TOKEN);
        LoginResult result = x.hello(client, "").login(client, "", OWN);

        assertThat(result.ok()).as(result.error()).isTrue();
        assertThat(x.keys.serverProven(result.serverProof())).isTrue();
        assertThat(result.capabilities()).contains(Capabilities.PAKE_LOGIN);
        x.ch.finishAndReleaseAll();
    }

    @Test
    void noTwoLoginsSeeTheSameServerShareThoughMostAreAnsweredFromPrecomputedScalars() {
        ServerLoginHarness harness = new ServerLoginHarness();
        Set<String> serverShares = new HashSet<>();
        int logins = 3 * Ephemerals.SERVER_SIZE;
        for (int i = 0; i < logins; i++) {
            Exchange x = new Exchange(harness.connection());
            PakeClient client = PakeClient.start(TOKEN);
            LoginResult result = x.hello(client, "").login(client, "", OWN);
            assertThat(result.ok()).as(result.error()).isTrue();
            serverShares.add(x.challenge.serverShare());
            x.ch.finishAndReleaseAll();
        }
        assertThat(serverShares).hasSize(logins); // Y = y·P + w0·N with the same w0: a y used twice repeats Y
    }

    @Test
    void aServerHoldingOnlyAVerifierAcceptsTheRightTokenAndRefusesAWrongOne() {
        ServerLoginHarness harness = new ServerLoginHarness(verifierOnly());
        Exchange right = new Exchange(harness.connection());
        PakeClient client = PakeClient.start(TOKEN);
        assertThat(right.hello(client, "").login(client, "", OWN).ok()).isTrue();
        right.ch.finishAndReleaseAll();

        Exchange wrong = new Exchange(harness.connection());
        PakeClient guesser = PakeClient.start(TOKEN + "!");
        LoginResult refused = wrong.hello(guesser, "").login(guesser, "", OWN);
        assertThat(refused.code()).isEqualTo(LoginResult.AUTH_FAILED);
        assertThat(refused.error()).isEqualTo("authorization failed: the server rejected auth.token");
        assertThat(wrong.ch.isOpen()).isFalse();
        wrong.ch.finishAndReleaseAll();
    }

    @Test
    void aServerHoldingOnlyAVerifierRefusesTheTokenLoginSayingOnlyPakeClientsCanLogIn() {
        EmbeddedChannel ch = new ServerLoginHarness(verifierOnly()).connection();
        String nonce = ServerLoginTest.challenge(ch);
        ServerLoginHarness.send(ch, ServerLoginHarness.encode(ServerLoginTest.login(TOKEN, nonce, OWN)));
        LoginResult result = ServerLoginTest.result(ch);

        assertThat(result.code()).isEqualTo(LoginResult.VERSION_MISMATCH);
        assertThat(result.error()).contains("only a token verifier").contains("only the PAKE login")
                .contains("auth.pake");
        ch.finishAndReleaseAll();
    }

    @Test
    void theTokenLoginIsRefusedWhereThePakeLoginIsRequired() {
        EmbeddedChannel ch = new ServerLoginHarness(config("required")).connection();
        String nonce = ServerLoginTest.challenge(ch);
        ServerLoginHarness.send(ch, ServerLoginHarness.encode(ServerLoginTest.login(TOKEN, nonce, OWN)));
        LoginResult result = ServerLoginTest.result(ch);

        assertThat(result.code()).isEqualTo(LoginResult.VERSION_MISMATCH);
        assertThat(result.error()).contains("requires the PAKE login (auth.pake = \"required\")");
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    @Test
    void aRecordedPakeLoginSentAgainIsRefused() {
        ServerLoginHarness harness = new ServerLoginHarness();
        Exchange first = new Exchange(harness.connection());
        PakeClient client = PakeClient.start(TOKEN);
        assertThat(first.hello(client, "").login(client, "", OWN).ok()).isTrue();
        first.ch.finishAndReleaseAll();

        // The recording: the same hello, the same share (X) and the same login (proof, nonce) on a new connection.
        Exchange replay = new Exchange(harness.connection());
        replay.hello(client, "");
        assertThat(replay.challenge.serverShare()).as("a fresh Y").isNotEqualTo(first.challenge.serverShare());
        LoginResult result = replay.send(first.share, first.login);
        assertThat(result.code()).isEqualTo(LoginResult.AUTH_FAILED);
        assertThat(replay.ch.isOpen()).isFalse();
        replay.ch.finishAndReleaseAll();
    }

    /** A server with one user, alice, and no shared token: a hello for any other name gets a decoy. */
    private static ServerConfig aliceOnly() {
        ServerConfig config = new ServerConfig();
        ServerConfig.User alice = new ServerConfig.User();
        alice.name = "alice";
        alice.token = TOKEN;
        config.users.add(alice);
        return config;
    }

    @Test
    void anUnknownUserGetsAChallengeLikeAnyUserAndTheSameRefusalAsAWrongToken() {
        ServerLoginHarness harness = new ServerLoginHarness(aliceOnly());

        Exchange wrong = new Exchange(harness.connection());
        PakeClient guesser = PakeClient.start("guess");
        LoginResult wrongToken = wrong.hello(guesser, "alice").login(guesser, "alice", OWN);
        Exchange nobody = new Exchange(harness.connection());
        PakeClient probe = PakeClient.start("guess");
        LoginResult noUser = nobody.hello(probe, "mallory").login(probe, "mallory", OWN);
        Exchange again = new Exchange(harness.connection()).hello(PakeClient.start("guess"), "mallory");

        assertThat(nobody.challenge.salt()).as("a salt as long as a real one").hasSameSizeAs(wrong.challenge.salt());
        assertThat(again.challenge.salt()).as("the same salt each time").isEqualTo(nobody.challenge.salt());
        assertThat(noUser.code()).isEqualTo(wrongToken.code()).isEqualTo(LoginResult.AUTH_FAILED);
        assertThat(noUser.error()).isEqualTo(wrongToken.error().replace("alice", "mallory"));
        for (Exchange x : List.of(wrong, nobody, again)) {
            x.ch.finishAndReleaseAll();
        }
    }

    @Test
    void anUnknownUsersScalarsAndVAreComputedAheadAsAnAccountsAre() {
        Credentials credentials = new Credentials(aliceOnly(), PakeWorker.inline());
        VerifierEphemerals pools = credentials.ephemerals();
        TokenVerifier account = credentials.find("alice").verifier();
        TokenVerifier decoy = credentials.decoy("mallory");
        assertThat(pools.ready(decoy)).isZero();

        pools.fillAll(); // as the server starts
        assertThat(pools.ready(decoy)).isEqualTo(pools.ready(account)).isEqualTo(VerifierEphemerals.PER_VERIFIER);
        pools.take(decoy);
        pools.take(account);
        assertThat(pools.ready(credentials.decoy("trudy"))).isEqualTo(pools.ready(account));
        pools.refill(decoy); // after the login's answer
        pools.refill(account);
        assertThat(pools.ready(decoy)).isEqualTo(pools.ready(account)).isEqualTo(VerifierEphemerals.PER_VERIFIER);
    }

    @Test
    void theScalarALoginTookIsReplacedOnlyAfterItsAnswerWasSent() {
        ServerLoginHarness harness = new ServerLoginHarness();
        VerifierEphemerals pools = harness.context.credentials().ephemerals();
        TokenVerifier verifier = harness.context.credentials().find("").verifier();
        pools.fillAll();
        Exchange x = new Exchange(harness.connection());
        PakeClient client = PakeClient.start(TOKEN);
        assertThat(x.hello(client, "").login(client, "", OWN).ok()).isTrue();

        assertThat(pools.ready(verifier)).as("answered, not refilled yet").isEqualTo(VerifierEphemerals.PER_VERIFIER - 1);
        x.ch.advanceTimeBy(ServerPakeHandler.REFILL_DELAY_MICROS, TimeUnit.MICROSECONDS);
        x.ch.runScheduledPendingTasks();
        assertThat(pools.ready(verifier)).isEqualTo(VerifierEphemerals.PER_VERIFIER);
        x.ch.finishAndReleaseAll();
    }

    @Test
    void aPakeLoginBoundToAnotherCertificateIsRefusedAsACertificateMismatch() {
        Exchange x = new Exchange(new ServerLoginHarness().connection());
        PakeClient client = PakeClient.start(TOKEN);
        ChannelBinding mitm = ChannelBinding.parse("sha256:" + "CD".repeat(32));
        LoginResult result = x.hello(client, "").login(client, "", mitm);

        assertThat(result.code()).isEqualTo(LoginResult.AUTH_FAILED);
        assertThat(result.error()).contains("certificate mismatch").contains(mitm.fingerprint());
        x.ch.finishAndReleaseAll();
    }

    @Test
    void aHelloToAServerWithThePakeLoginOffIsRefusedSoTheClientFallsBack() {
        EmbeddedChannel ch = new ServerLoginHarness(config("off")).connection();
        ServerLoginHarness.send(ch, concat(ServerLoginTest.preface(),
                ServerLoginHarness.encode(new PakeHello(""))));
        List<ControlMessage> out = ServerLoginHarness.received(ch, true);

        assertThat(out).as("refused before any challenge").hasSize(1);
        LoginResult result = (LoginResult) out.get(0);
        assertThat(result.code()).isEqualTo(LoginResult.VERSION_MISMATCH);
        assertThat(result.error()).contains("auth.pake = \"off\"");
        assertThat(result.capabilities()).doesNotContain(Capabilities.PAKE_LOGIN);
        ch.finishAndReleaseAll();
    }

    @Test
    void aHelloCarryingTheShareForTheAccountsSaltLogsInWithoutAPakeShare() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        ServerConfig config = new ServerConfig();
        config.auth.tokenVerifier = verifier.format();
        ServerLoginHarness harness = new ServerLoginHarness(config);
        Exchange first = new Exchange(harness.connection());
        PakeClient warm = PakeClient.start(TOKEN);
        assertThat(first.hello(warm, "").login(warm, "", OWN).ok()).isTrue(); // the client now knows the salt
        first.ch.finishAndReleaseAll();

        EmbeddedChannel ch = harness.connection();
        PakeClient client = PakeClient.start(TOKEN);
        String x = client.early(first.challenge.salt());
        ServerLoginHarness.send(ch, concat(ServerLoginTest.preface(),
                ServerLoginHarness.encode(new PakeHello("", first.challenge.salt(), x))));
        Exchange early = new Exchange(ch);
        early.seen.addAll(ServerLoginHarness.received(ch, true));
        early.serverNonce = ((Challenge) early.seen.get(0)).serverNonce();
        early.challenge = (PakeChallenge) early.seen.get(1);
        String clientNonce = LoginProof.newNonce();
        PakeKeys keys = client.finish(early.challenge.salt(), early.challenge.serverShare())
                .keys("", early.serverNonce, clientNonce, OWN);
        assertThat(client.sentEarly(early.challenge.salt())).isTrue();
        Login login = new Login("t", "host", "run", 0, clientNonce, keys.clientProof(), true, 1, 262_144, "",
                OWN.fingerprint(), List.of("options", "proxies.live", Capabilities.PAKE_LOGIN), Options.EMPTY);
        LoginResult result = early.send(null, login);

        assertThat(result.ok()).as(result.error()).isTrue();
        assertThat(keys.serverProven(result.serverProof())).isTrue();
        ch.finishAndReleaseAll();
    }

    @Test
    void aPakeLoginWithoutTheClientsShareClosesTheConnection() {
        Exchange x = new Exchange(new ServerLoginHarness().connection());
        PakeClient client = PakeClient.start(TOKEN);
        x.hello(client, "");
        String clientNonce = LoginProof.newNonce();
        PakeKeys keys = client.finish(x.challenge.salt(), x.challenge.serverShare()).keys("", x.serverNonce, clientNonce, OWN);
        Login login = new Login("t", "host", "run", 0, clientNonce, keys.clientProof(), true, 1, 262_144, "",
                OWN.fingerprint(), List.of("options", "proxies.live", Capabilities.PAKE_LOGIN), Options.EMPTY);
        ServerLoginHarness.send(x.ch, ServerLoginHarness.encode(login));

        assertThat(ServerLoginHarness.received(x.ch, false)).noneMatch(m -> m instanceof LoginResult r && r.ok());
        assertThat(x.ch.isOpen()).isFalse();
        x.ch.finishAndReleaseAll();
    }
}
