package dev.tunnel.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.PakeChallenge;
import dev.tunnel.protocol.ControlMessage.PakeHello;
import dev.tunnel.protocol.ControlMessage.PakeShare;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.auth.PakeKeys;
import dev.tunnel.protocol.auth.PakeMode;
import dev.tunnel.protocol.auth.PakeServer;
import dev.tunnel.protocol.auth.PakeWorker;
import dev.tunnel.protocol.auth.TokenVerifier;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client's half of the PAKE login against a server played with {@link PakeServer}: the login it
 * sends proves the token, and it accepts only the server proof of a server that holds the token's
 * verifier, for this very login.
 */
@Timeout(20)
class LoginExchangeTest {
    private static final String TOKEN = "client-token-7e1a";
    private static final ChannelBinding SEEN = ChannelBinding.parse("sha256:" + "AB".repeat(32));
    private static final ClientIdentity IDENTITY = new ClientIdentity("t", "host", "run", TOKEN, true, 1,
            Capabilities.BASE, Options.EMPTY);

    /** One PAKE login up to the client's LOGIN, against a server holding {@code verifier}. */
    private static final class Run {
        final LoginExchange exchange = new LoginExchange(
                new ClientCredentials("alice", TOKEN, null, new ClientPake(PakeMode.PREFERRED)), PakeWorker.inline());
        final String sn = LoginProof.newNonce();
        final PakeServer server;
        final PakeHello hello;
        final PakeShare share;
        final Login login;

        Run(TokenVerifier verifier) {
            assertThat(exchange.pake()).isTrue();
            hello = exchange.hello("127.0.0.1:7000");
            assertThat(hello.user()).isEqualTo("alice");
            assertThat(exchange.challenged(new Challenge(sn), SEEN)).isTrue();
            server = PakeServer.start(verifier);
            PakeKeys keys = exchange.agree(new PakeChallenge(server.salt(), server.serverShare()),
                    ImmediateEventExecutor.INSTANCE).getNow();
            share = exchange.share();
            login = exchange.answer(keys, IDENTITY, 262_144);
        }

        /** What the server computes for this login. */
        PakeKeys serverKeys() {
            String x = share != null ? share.clientShare() : hello.clientShare();
            return server.agree(x).keys(login.user(), sn, login.nonce(), SEEN);
        }
    }

    private static LoginResult ok(String serverProof) {
        return new LoginResult(LoginResult.OK, "", "t", "1", 262_144, serverProof, List.of(), Options.EMPTY);
    }

    @Test
    void theLoginProvesTheTokenAndOnlyTheRightServerProofIsAccepted() {
        Run run = new Run(TokenVerifier.create(TOKEN));
        PakeKeys server = run.serverKeys();

        assertThat(server.clientProven(run.login.proof())).isTrue();
        assertThat(run.login.capabilities()).contains(Capabilities.PAKE_LOGIN);
        assertThat(run.login.serverCertificate()).isEqualTo(SEEN.fingerprint());
        assertThat(run.exchange.serverProven(ok(server.serverProof()))).isTrue();
        assertThat(run.exchange.proofKey()).isEqualTo(server.sessionKey()).isNotEqualTo(TOKEN);
    }

    @Test
    void aServerThatDoesNotHoldTheTokensVerifierCannotProveItself() {
        Run run = new Run(TokenVerifier.create("another token"));
        PakeKeys fake = run.serverKeys();

        assertThat(fake.clientProven(run.login.proof())).isFalse();
        assertThat(run.exchange.serverProven(ok(fake.serverProof()))).isFalse();
        assertThat(run.exchange.serverProven(ok(""))).isFalse();
    }

    @Test
    void theServerProofOfAnotherLoginIsRefused() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        Run earlier = new Run(verifier);
        Run now = new Run(verifier);

        assertThat(now.exchange.serverProven(ok(earlier.serverKeys().serverProof()))).isFalse();
    }

    @Test
    void aSecondLoginToTheSameServerAndSaltSendsItsShareInTheHelloAndNoneAfter() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        Run first = new Run(verifier);
        Run second = new Run(verifier);

        assertThat(first.share).as("the salt was new: the share follows the challenge").isNotNull();
        assertThat(second.hello.salt()).isEqualTo(second.server.salt());
        assertThat(second.hello.clientShare()).isNotEmpty();
        assertThat(second.share).isNull();
        PakeKeys server = second.serverKeys();
        assertThat(server.clientProven(second.login.proof())).isTrue();
        assertThat(second.exchange.serverProven(ok(server.serverProof()))).isTrue();
    }

    @Test
    void aServerThatAnswersWithAnotherSaltGetsAShareFromAFreshScalar() {
        new Run(TokenVerifier.create(TOKEN)); // remembers that salt
        Run restarted = new Run(TokenVerifier.create(TOKEN)); // the server restarted: a new salt

        assertThat(restarted.hello.clientShare()).as("an early share for the old salt").isNotEmpty();
        assertThat(restarted.share).isNotNull();
        assertThat(restarted.share.clientShare()).isNotEqualTo(restarted.hello.clientShare());
        PakeKeys server = restarted.serverKeys();
        assertThat(server.clientProven(restarted.login.proof())).isTrue();
    }

    @Test
    void aRefusalWithoutThePakeCapabilityMeansTheServerLacksIt() {
        Run run = new Run(TokenVerifier.create(TOKEN));
        LoginResult off = new LoginResult(LoginResult.VERSION_MISMATCH, "off", "t", "", 0, "", List.of("options"),
                Options.EMPTY);
        LoginResult wrong = new LoginResult(LoginResult.AUTH_FAILED, "no", "t", "", 0, "",
                List.of("options", Capabilities.PAKE_LOGIN), Options.EMPTY);

        assertThat(run.exchange.serverLacksPake(off)).isTrue();
        assertThat(run.exchange.serverLacksPake(wrong)).isFalse();
        assertThat(run.exchange.serverLacksPake(null)).as("the server answered the hello").isFalse();
    }
}
