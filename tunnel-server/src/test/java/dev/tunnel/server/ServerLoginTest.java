package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.Preface;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.LoginProof;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server's login state machine on EmbeddedChannels: challenge, proof, replay, binding, timeout. */
@Timeout(10)
class ServerLoginTest {
    private final ServerLoginHarness harness = new ServerLoginHarness();

    static byte[] preface() {
        ByteBuf p = Preface.encode(UnpooledByteBufAllocator.DEFAULT);
        try {
            return ByteBufUtil.getBytes(p);
        } finally {
            p.release();
        }
    }

    /** Opens a connection, sends the preface, returns the server's challenge nonce. */
    static String challenge(EmbeddedChannel ch) {
        ServerLoginHarness.send(ch, preface());
        List<ControlMessage> out = ServerLoginHarness.received(ch, true);
        assertThat(out).hasSize(1).first().isInstanceOf(Challenge.class);
        return ((Challenge) out.get(0)).serverNonce();
    }

    static Login login(String token, String serverNonce, ChannelBinding binding) {
        String clientNonce = LoginProof.newNonce();
        return new Login("t", "host", "run", 0, clientNonce,
                LoginProof.client(token, "", serverNonce, clientNonce, binding), true, 1, 262_144, "",
                binding.fingerprint(), Capabilities.BASE, Options.EMPTY);
    }

    static LoginResult result(EmbeddedChannel ch) {
        List<ControlMessage> out = ServerLoginHarness.received(ch, false);
        assertThat(out).as("the login result comes first (a ping may follow)").isNotEmpty().first()
                .isInstanceOf(LoginResult.class);
        return (LoginResult) out.get(0);
    }

    @Test
    void aLoginBoundToTheServersCertificateSucceedsWithAServerProof() {
        EmbeddedChannel ch = harness.connection();
        String nonce = challenge(ch);
        Login login = login(ServerLoginHarness.TOKEN, nonce, ServerLoginHarness.OWN);
        ServerLoginHarness.send(ch, ServerLoginHarness.encode(login));
        LoginResult result = result(ch);
        assertThat(result.ok()).isTrue();
        assertThat(LoginProof.verifyServer(ServerLoginHarness.TOKEN, "", nonce, login.nonce(), ServerLoginHarness.OWN,
                result.serverProof())).isTrue();
        assertThat(ch.isOpen()).isTrue();
        ch.finishAndReleaseAll();
    }

    @Test
    void aRecordedLoginSentAgainIsRefused() {
        EmbeddedChannel first = harness.connection();
        Login recorded = login(ServerLoginHarness.TOKEN, challenge(first), ServerLoginHarness.OWN);
        ServerLoginHarness.send(first, ServerLoginHarness.encode(recorded));
        assertThat(result(first).ok()).isTrue();
        first.finishAndReleaseAll();

        EmbeddedChannel replay = harness.connection();
        challenge(replay); // a fresh nonce the recording does not cover
        ServerLoginHarness.send(replay, ServerLoginHarness.encode(recorded));
        LoginResult result = result(replay);
        assertThat(result.code()).isEqualTo(LoginResult.AUTH_FAILED);
        assertThat(replay.isOpen()).isFalse();
        replay.finishAndReleaseAll();
    }

    @Test
    void aLoginResultOffersNoSecondConnectionSoAClientOfAnEarlierReleaseKeepsOne() {
        EmbeddedChannel ch = harness.connection();
        ServerLoginHarness.send(ch, ServerLoginHarness.encode(login(ServerLoginHarness.TOKEN, challenge(ch),
                ServerLoginHarness.OWN)));
        LoginResult result = result(ch);
        assertThat(result.ok()).isTrue();
        assertThat(result.capabilities()).as("no express lane (mux.expressLane2) offered")
                .noneMatch(c -> c.startsWith("mux.expressLane"));
        ch.finishAndReleaseAll();
    }

    @Test
    void aJoinLaneOfAnEarlierReleaseIsAnUnknownMessageAndClosesTheConnection() {
        EmbeddedChannel ch = harness.connection();
        challenge(ch);
        // CONTROL frame on stream 0 whose message is kind 13, JOIN_LANE in releases with an express lane
        byte[] joinLane = {0x01, 0, 0, 0, 0, 0, 0, 0, 0, 1, 13};
        try {
            ServerLoginHarness.send(ch, joinLane);
        } catch (RuntimeException e) {
            assertThat(e).hasStackTraceContaining("unknown control message kind 13");
        }
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    @Test
    void aLoginBeforeTheChallengeOrASecondLoginOnOneChallengeIsRefused() {
        EmbeddedChannel early = harness.connection();
        ServerLoginHarness.send(early, preface());
        Login guessed = login(ServerLoginHarness.TOKEN, LoginProof.newNonce(), ServerLoginHarness.OWN);
        ServerLoginHarness.received(early, true);
        ServerLoginHarness.send(early, ServerLoginHarness.encode(guessed));
        assertThat(result(early).ok()).isFalse();
        early.finishAndReleaseAll();
    }

    @Test
    void aLoginBoundToAnotherCertificateIsRefusedAsACertificateMismatch() {
        EmbeddedChannel ch = harness.connection();
        ChannelBinding mitm = ChannelBinding.parse("sha256:" + "CD".repeat(32));
        ServerLoginHarness.send(ch, ServerLoginHarness.encode(login(ServerLoginHarness.TOKEN, challenge(ch), mitm)));
        LoginResult result = result(ch);
        assertThat(result.ok()).isFalse();
        assertThat(result.error()).contains("certificate mismatch").contains(mitm.fingerprint())
                .contains(ServerLoginHarness.OWN.fingerprint());
        ch.finishAndReleaseAll();
    }

    @Test
    void aPlaintextConnectionMayBindToNothingButATlsOneMayNot() {
        EmbeddedChannel plain = harness.connection();
        ServerLoginHarness.send(plain, ServerLoginHarness.encode(
                login(ServerLoginHarness.TOKEN, challenge(plain), ChannelBinding.none())));
        assertThat(result(plain).ok()).as("no TLS on this connection: a plain client").isTrue();
        plain.finishAndReleaseAll();
    }

    @Test
    void aConnectionThatNeverLogsInIsClosedAtTheLoginTimeout() {
        EmbeddedChannel ch = harness.connection();
        challenge(ch);
        ch.advanceTimeBy(9, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();
        ch.advanceTimeBy(2, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }
}
