package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlMessage;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewWorkConn;
import dev.tunnel.protocol.ControlMessage.ReqWorkConn;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.ConnectionProof;
import dev.tunnel.protocol.auth.LoginProof;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Pool-mode work connections on EmbeddedChannels: a client that lists {@code pool.issuedNonces}
 * gets a nonce per connection asked for, and a connection that proves itself with one behind its
 * preface joins the pool with no challenge sent; a replayed, unknown or borrowed nonce is refused
 * and closed; a client without the capability answers its connection's challenge as before.
 */
@Timeout(10)
class ServerWorkConnNonceTest {
    private static final List<String> WITH_NONCES = List.of(Capabilities.OPTIONS, Capabilities.LIVE_PROXIES,
            Capabilities.ISSUED_NONCES);
    private final ServerLoginHarness harness = new ServerLoginHarness(false);
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private EmbeddedChannel control;
    private String sessionId;

    @AfterEach
    void release() {
        for (EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
    }

    /** Logs a pool-mode client in (pool of 5) and returns what the pool asked it for. */
    private ReqWorkConn login(List<String> capabilities) {
        control = open();
        String serverNonce = ServerLoginTest.challenge(control);
        String clientNonce = LoginProof.newNonce();
        ServerLoginHarness.send(control, ServerLoginHarness.encode(new Login("t", "host", "run", 0, clientNonce,
                LoginProof.client(ServerLoginHarness.TOKEN, "", serverNonce, clientNonce, ServerLoginHarness.OWN),
                false, 5, 262_144, "", ServerLoginHarness.OWN.fingerprint(), capabilities, Options.EMPTY)));
        control.runPendingTasks();
        List<ControlMessage> out = ServerLoginHarness.received(control, false);
        assertThat(out).first().isInstanceOf(LoginResult.class);
        sessionId = ((LoginResult) out.get(0)).sessionId();
        return out.stream().filter(ReqWorkConn.class::isInstance).map(ReqWorkConn.class::cast).findFirst()
                .orElseThrow();
    }

    private EmbeddedChannel open() {
        EmbeddedChannel ch = harness.workConnection();
        channels.add(ch);
        return ch;
    }

    private static NewWorkConn ahead(String sessionId, String issued, ChannelBinding binding) {
        String clientNonce = LoginProof.newNonce();
        return new NewWorkConn(sessionId, 0, clientNonce, ConnectionProof.WORK_CONN.compute(ServerLoginHarness.TOKEN,
                "", sessionId, issued, clientNonce, binding), issued);
    }

    /** The client's first flight: its preface and the work connection's proof, in one read. */
    private static byte[] firstFlight(NewWorkConn work) {
        byte[] preface = ServerLoginTest.preface();
        byte[] frame = ServerLoginHarness.encode(work);
        byte[] all = new byte[preface.length + frame.length];
        System.arraycopy(preface, 0, all, 0, preface.length);
        System.arraycopy(frame, 0, all, preface.length, frame.length);
        return all;
    }

    private boolean pooled(EmbeddedChannel ch) {
        return ch.isOpen() && ch.pipeline().get(TunnelPipeline.WORK_CONN) instanceof PooledWorkConn
                && ch.pipeline().get(TunnelPipeline.CONTROL) == null;
    }

    private int idle() {
        control.runPendingTasks();
        return harness.context.sessions().find(sessionId).pool().idleCount();
    }

    @Test
    void aClientThatTakesIssuedNoncesGetsOnePerConnection() {
        ReqWorkConn request = login(WITH_NONCES);
        assertThat(request.count()).isEqualTo(5);
        assertThat(request.nonces()).hasSize(5).doesNotHaveDuplicates().allMatch(LoginProof::wellFormedNonce);
    }

    @Test
    void aConnectionProvenWithAnIssuedNonceJoinsThePoolAndIsSentNoChallenge() {
        ReqWorkConn request = login(WITH_NONCES);
        EmbeddedChannel work = open();
        ServerLoginHarness.send(work, firstFlight(ahead(sessionId, request.nonces().get(0), ServerLoginHarness.OWN)));
        assertThat(pooled(work)).isTrue();
        assertThat(idle()).isEqualTo(1);
        work.flush();
        ByteBuf written = work.readOutbound();
        assertThat(ByteBufUtil.getBytes(written)).as("the preface alone, left for START_WORK_CONN to carry")
                .isEqualTo(ServerLoginTest.preface());
        written.release();
        assertThat((Object) work.readOutbound()).isNull();
    }

    @Test
    void anIssuedNonceOpensOneConnection() {
        ReqWorkConn request = login(WITH_NONCES);
        byte[] recorded = firstFlight(ahead(sessionId, request.nonces().get(0), ServerLoginHarness.OWN));
        EmbeddedChannel first = open();
        ServerLoginHarness.send(first, recorded);
        assertThat(pooled(first)).isTrue();

        EmbeddedChannel replay = open();
        ServerLoginHarness.send(replay, recorded);
        assertThat(replay.isOpen()).as("the nonce was used").isFalse();

        EmbeddedChannel fresh = open();
        ServerLoginHarness.send(fresh, firstFlight(ahead(sessionId, request.nonces().get(1), ServerLoginHarness.OWN)));
        assertThat(pooled(fresh)).as("the session's other nonces still open connections").isTrue();
        assertThat(idle()).isEqualTo(2);
    }

    @Test
    void aNonceTheSessionNeverIssuedIsRefused() {
        login(WITH_NONCES);
        EmbeddedChannel work = open();
        ServerLoginHarness.send(work, firstFlight(ahead(sessionId, LoginProof.newNonce(), ServerLoginHarness.OWN)));
        assertThat(work.isOpen()).isFalse();
        assertThat(idle()).isZero();
    }

    @Test
    void anIssuedNonceWithTheWrongTokenOrAnotherCertificateIsRefusedAndSpent() {
        ReqWorkConn request = login(WITH_NONCES);
        String nonce = request.nonces().get(0);
        EmbeddedChannel otherCert = open();
        ServerLoginHarness.send(otherCert, firstFlight(ahead(sessionId, nonce,
                ChannelBinding.parse("sha256:" + "CD".repeat(32)))));
        assertThat(otherCert.isOpen()).isFalse();

        EmbeddedChannel again = open();
        ServerLoginHarness.send(again, firstFlight(ahead(sessionId, nonce, ServerLoginHarness.OWN)));
        assertThat(again.isOpen()).as("a refused attempt spent the nonce").isFalse();

        String clientNonce = LoginProof.newNonce();
        EmbeddedChannel wrongToken = open();
        ServerLoginHarness.send(wrongToken, firstFlight(new NewWorkConn(sessionId, 0, clientNonce,
                ConnectionProof.WORK_CONN.compute("not-the-token", "", sessionId, request.nonces().get(1), clientNonce,
                        ServerLoginHarness.OWN), request.nonces().get(1))));
        assertThat(wrongToken.isOpen()).isFalse();
    }

    @Test
    void aPrefaceThatCameAloneIsChallengedAndAnIssuedNonceStillAnswers() {
        ReqWorkConn request = login(WITH_NONCES);
        EmbeddedChannel work = open();
        String challenge = ServerLoginTest.challenge(work);
        ServerLoginHarness.send(work, ServerLoginHarness.encode(ahead(sessionId, request.nonces().get(0),
                ServerLoginHarness.OWN)));
        assertThat(pooled(work)).isTrue();
        work.flush();
        assertThat((Object) work.readOutbound()).as("no second preface").isNull();
        assertThat(challenge).isNotEqualTo(request.nonces().get(0));
    }

    @Test
    void aClientWithoutTheCapabilityIsAskedWithoutNoncesAndAnswersItsChallenge() {
        ReqWorkConn request = login(List.of(Capabilities.OPTIONS, Capabilities.LIVE_PROXIES));
        assertThat(request.nonces()).isEmpty();
        EmbeddedChannel work = open();
        String serverNonce = ServerLoginTest.challenge(work);
        String clientNonce = LoginProof.newNonce();
        ServerLoginHarness.send(work, ServerLoginHarness.encode(new NewWorkConn(sessionId, 0, clientNonce,
                ConnectionProof.WORK_CONN.compute(ServerLoginHarness.TOKEN, "", sessionId, serverNonce, clientNonce,
                        ServerLoginHarness.OWN))));
        assertThat(pooled(work)).isTrue();

        EmbeddedChannel claimsAhead = open();
        ServerLoginHarness.send(claimsAhead, firstFlight(ahead(sessionId, LoginProof.newNonce(),
                ServerLoginHarness.OWN)));
        assertThat(claimsAhead.isOpen()).as("this session issued nothing").isFalse();
    }

    @Test
    void aChallengeNonceIsNoIssuedNonce() {
        login(WITH_NONCES);
        EmbeddedChannel work = open();
        String challenge = ServerLoginTest.challenge(work);
        ServerLoginHarness.send(work, ServerLoginHarness.encode(ahead(sessionId, challenge, ServerLoginHarness.OWN)));
        assertThat(work.isOpen()).isFalse();
    }
}
