package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.Capabilities;
import dev.tunnel.protocol.ControlMessage.Goodbye;
import dev.tunnel.protocol.ControlMessage.JoinLane;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.ConnectionProof;
import dev.tunnel.protocol.auth.LoginProof;
import dev.tunnel.protocol.mux.BulkLane;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Joining a session's bulk lane on EmbeddedChannels: the server offers the lane at login, a join
 * proven for this connection's challenge becomes the lane, and a wrong, replayed, borrowed or
 * second join is refused and closed.
 */
@Timeout(10)
class ServerLaneJoinTest {
    private final ServerLoginHarness harness = new ServerLoginHarness();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private String sessionId;

    @AfterEach
    void release() {
        for (EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
    }

    /** Logs in on a new connection and returns its login result. */
    private LoginResult login() {
        EmbeddedChannel control = open();
        String nonce = ServerLoginTest.challenge(control);
        Login login = ServerLoginTest.login(ServerLoginHarness.TOKEN, nonce, ServerLoginHarness.OWN);
        ServerLoginHarness.send(control, ServerLoginHarness.encode(login));
        LoginResult result = ServerLoginTest.result(control);
        assertThat(result.ok()).isTrue();
        sessionId = result.sessionId();
        return result;
    }

    private EmbeddedChannel open() {
        EmbeddedChannel ch = harness.laneConnection();
        channels.add(ch);
        return ch;
    }

    private static JoinLane join(String token, String sessionId, String serverNonce, ChannelBinding binding) {
        String clientNonce = LoginProof.newNonce();
        return new JoinLane(sessionId, 0, clientNonce,
                ConnectionProof.LANE.compute(token, "", sessionId, serverNonce, clientNonce, binding));
    }

    private static boolean isBulkLane(EmbeddedChannel ch) {
        return ch.isOpen() && ch.pipeline().get(TunnelPipeline.BULK_LANE) instanceof BulkLane
                && ch.pipeline().get(TunnelPipeline.CONTROL) == null;
    }

    @Test
    void theServerOffersTheLaneAndAJoinProvenForThisConnectionBecomesIt() {
        assertThat(login().capabilities()).contains(Capabilities.EXPRESS_LANE);
        EmbeddedChannel lane = open();
        String nonce = ServerLoginTest.challenge(lane);
        ServerLoginHarness.send(lane, ServerLoginHarness.encode(join(ServerLoginHarness.TOKEN, sessionId, nonce,
                ServerLoginHarness.OWN)));
        assertThat(isBulkLane(lane)).isTrue();
    }

    @Test
    void aRecordedJoinSentAgainOnAnotherConnectionIsRefused() {
        login();
        EmbeddedChannel first = open();
        JoinLane recorded = join(ServerLoginHarness.TOKEN, sessionId, ServerLoginTest.challenge(first),
                ServerLoginHarness.OWN);
        first.close(); // the join was seen on the wire (or never arrived): either way its challenge is spent

        EmbeddedChannel replay = open();
        ServerLoginTest.challenge(replay); // a fresh nonce the recording does not cover
        ServerLoginHarness.send(replay, ServerLoginHarness.encode(recorded));
        assertThat(replay.isOpen()).isFalse();

        EmbeddedChannel fresh = open();
        ServerLoginHarness.send(fresh, ServerLoginHarness.encode(join(ServerLoginHarness.TOKEN, sessionId,
                ServerLoginTest.challenge(fresh), ServerLoginHarness.OWN)));
        assertThat(isBulkLane(fresh)).as("the session still takes a join proven for its own challenge").isTrue();
    }

    @Test
    void aJoinWithTheWrongTokenOrAnotherCertificateIsRefused() {
        login();
        EmbeddedChannel wrongToken = open();
        ServerLoginHarness.send(wrongToken, ServerLoginHarness.encode(join("not-the-token", sessionId,
                ServerLoginTest.challenge(wrongToken), ServerLoginHarness.OWN)));
        assertThat(wrongToken.isOpen()).isFalse();

        EmbeddedChannel otherCert = open();
        ServerLoginHarness.send(otherCert, ServerLoginHarness.encode(join(ServerLoginHarness.TOKEN, sessionId,
                ServerLoginTest.challenge(otherCert), ChannelBinding.parse("sha256:" + "CD".repeat(32)))));
        assertThat(otherCert.isOpen()).isFalse();
    }

    @Test
    void aWorkConnectionProofDoesNotJoinALane() {
        login();
        EmbeddedChannel lane = open();
        String nonce = ServerLoginTest.challenge(lane);
        String clientNonce = LoginProof.newNonce();
        JoinLane borrowed = new JoinLane(sessionId, 0, clientNonce, ConnectionProof.WORK_CONN.compute(ServerLoginHarness.TOKEN, "",
                sessionId, nonce, clientNonce, ServerLoginHarness.OWN));
        ServerLoginHarness.send(lane, ServerLoginHarness.encode(borrowed));
        assertThat(lane.isOpen()).isFalse();
    }

    @Test
    void aJoinForAnUnknownSessionIsRefused() {
        login();
        EmbeddedChannel unknown = open();
        ServerLoginHarness.send(unknown, ServerLoginHarness.encode(join(ServerLoginHarness.TOKEN, "999",
                ServerLoginTest.challenge(unknown), ServerLoginHarness.OWN)));
        assertThat(unknown.isOpen()).isFalse();
    }

    @Test
    void aSessionTakesOneLane() {
        login();
        EmbeddedChannel first = open();
        ServerLoginHarness.send(first, ServerLoginHarness.encode(join(ServerLoginHarness.TOKEN, sessionId,
                ServerLoginTest.challenge(first), ServerLoginHarness.OWN)));
        assertThat(isBulkLane(first)).isTrue();
        EmbeddedChannel second = open();
        ServerLoginHarness.send(second, ServerLoginHarness.encode(join(ServerLoginHarness.TOKEN, sessionId,
                ServerLoginTest.challenge(second), ServerLoginHarness.OWN)));
        assertThat(second.isOpen()).isFalse();
        assertThat(first.isOpen()).isTrue();
    }

    @Test
    void aSessionWhoseClientSaidGoodbyeStillTakesItsLaneWhileItDrains() {
        login();
        EmbeddedChannel control = channels.get(0);
        ServerLoginHarness.send(control, ServerLoginHarness.encode(new Goodbye("client shutting down")));
        control.runPendingTasks();
        EmbeddedChannel lane = open();
        ServerLoginHarness.send(lane, ServerLoginHarness.encode(join(ServerLoginHarness.TOKEN, sessionId,
                ServerLoginTest.challenge(lane), ServerLoginHarness.OWN)));
        assertThat(isBulkLane(lane)).isTrue();
    }
}
