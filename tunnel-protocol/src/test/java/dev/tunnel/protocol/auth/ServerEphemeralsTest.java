package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.auth.ServerEphemerals.Ephemeral;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Queue;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server's precomputed exponents: computed on the worker, each handed out once, refilled. */
@Timeout(20)
class ServerEphemeralsTest {
    /** A worker whose tasks run only when the test says so. */
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private final ServerEphemerals pool = new ServerEphemerals(tasks::add);

    private void runTasks() {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            task.run();
        }
    }

    @Test
    void exponentsAreComputedOnTheWorkerNotByTheCallerAndTheFirstTakeFindsNoneReady() {
        assertThat(pool.poll()).isNull(); // nothing computed yet: the caller computes its own
        assertThat(tasks).hasSize(1); // ...and a refill is queued, not run on the caller's thread
        assertThat(pool.ready()).isZero();

        runTasks();
        assertThat(pool.ready()).isEqualTo(ServerEphemerals.SIZE);
        assertThat(tasks).isEmpty();
    }

    @Test
    void eachExponentIsHandedOutOnceAndTakingOneRefillsThePool() {
        pool.refill();
        runTasks();
        Set<BigInteger> seen = new HashSet<>();
        for (int i = 0; i < 3 * ServerEphemerals.SIZE; i++) {
            Ephemeral e = pool.poll();
            assertThat(e).isNotNull();
            assertThat(seen.add(e.b)).as("b handed out twice").isTrue();
            assertThat(e.gb).isEqualTo(PakeSuite.GROUP.getG().modPow(e.b, PakeSuite.GROUP.getN()));
            assertThat(e.b.bitLength()).isEqualTo(PakeSuite.SERVER_EXPONENT_BITS);
            runTasks();
            assertThat(pool.ready()).isEqualTo(ServerEphemerals.SIZE);
        }
    }

    @Test
    void aLoginFromAPrecomputedExponentAgreesWithTheClient() {
        pool.refill();
        runTasks();
        TokenVerifier verifier = TokenVerifier.create("correct horse");
        PakeServer server = PakeServer.start(verifier, pool.poll());
        PakeClient client = PakeClient.start("correct horse");
        ChannelBinding none = ChannelBinding.none();
        PakeKeys clientKeys = client.finish(server.salt(), server.serverPublic()).keys("", "sn", "cn", none);
        PakeKeys serverKeys = server.agree(client.clientPublic()).keys("", "sn", "cn", none);
        assertThat(serverKeys.clientProven(clientKeys.clientProof())).isTrue();
        assertThat(clientKeys.serverProven(serverKeys.serverProof())).isTrue();
    }

    @Test
    void aSecondLoginOfTheSameClientToTheSameAccountStillAgrees() {
        TokenVerifier verifier = TokenVerifier.create("correct horse");
        for (int i = 0; i < 2; i++) { // the second finds k·g^x in KnownVerifiers
            PakeServer server = PakeServer.start(verifier);
            PakeClient client = PakeClient.start("correct horse");
            ChannelBinding none = ChannelBinding.none();
            PakeKeys clientKeys = client.finish(server.salt(), server.serverPublic()).keys("", "sn", "cn", none);
            assertThat(server.agree(client.clientPublic()).keys("", "sn", "cn", none).clientProven(clientKeys.clientProof()))
                    .isTrue();
        }
    }
}
