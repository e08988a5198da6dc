package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Queue;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Precomputed scalars: computed on the worker, each handed out once, refilled; for the server and the client. */
@Timeout(20)
class EphemeralsTest {
    /** A worker whose tasks run only when the test says so. */
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private final Ephemerals server = new Ephemerals(tasks::add, Ephemerals.SERVER_SIZE);
    private final Ephemerals client = new Ephemerals(tasks::add, Ephemerals.CLIENT_SIZE);

    private void runTasks() {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            task.run();
        }
    }

    @Test
    void scalarsAreComputedOnTheWorkerNotByTheCallerAndTheFirstTakeFindsNoneReady() {
        assertThat(server.poll()).isNull(); // nothing computed yet: the caller computes its own
        assertThat(tasks).isEmpty(); // ...and polling starts no computation that would compete with that login

        server.refill(); // the login is done
        assertThat(tasks).hasSize(1); // queued, not run on the caller's thread
        assertThat(server.ready()).isZero();
        runTasks();
        assertThat(server.ready()).isEqualTo(Ephemerals.SERVER_SIZE);
        assertThat(tasks).isEmpty();
    }

    @Test
    void eachScalarIsHandedOutOnceAndARefillAfterTheLoginRestoresThePool() {
        for (Ephemerals pool : new Ephemerals[] {server, client}) {
            pool.refill();
            runTasks();
            int size = pool.ready();
            Set<BigInteger> seen = new HashSet<>();
            for (int i = 0; i < 3 * size; i++) {
                Ephemeral e = pool.poll();
                assertThat(e).isNotNull();
                assertThat(seen.add(e.scalar)).as("scalar handed out twice").isTrue();
                assertThat(e.point).isEqualTo(PakeSuite.G.multiply(e.scalar).normalize());
                assertThat(e.scalar).isPositive().isLessThan(PakeSuite.ORDER);
                assertThat(tasks).isEmpty();
                pool.refill();
                runTasks();
                assertThat(pool.ready()).isEqualTo(size);
            }
        }
    }

    @Test
    void takeComputesAFreshScalarWhenNoneIsReady() {
        Ephemeral e = client.take();
        assertThat(e.point).isEqualTo(PakeSuite.G.multiply(e.scalar).normalize());
        assertThat(tasks).hasSize(1); // and the refill for the next login is queued
    }

    @Test
    void aLoginFromPrecomputedScalarsOnBothSidesAgrees() {
        server.refill();
        client.refill();
        runTasks();
        TokenVerifier verifier = TokenVerifier.create("correct horse");
        PakeServer s = PakeServer.start(verifier, server.poll());
        PakeClient c = PakeClient.start("correct horse", client.poll());
        ChannelBinding none = ChannelBinding.none();
        PakeKeys clientKeys = c.finish(s.salt(), s.serverShare()).keys("", "sn", "cn", none);
        PakeKeys serverKeys = s.agree(c.clientShare()).keys("", "sn", "cn", none);
        assertThat(serverKeys.clientProven(clientKeys.clientProof())).isTrue();
        assertThat(clientKeys.serverProven(serverKeys.serverProof())).isTrue();
    }

    @Test
    void aSecondLoginOfTheSameClientToTheSameAccountStillAgrees() {
        TokenVerifier verifier = TokenVerifier.create("correct horse");
        for (int i = 0; i < 2; i++) { // the second finds w0, w1 in ProverSecrets
            PakeServer s = PakeServer.start(verifier);
            PakeClient c = PakeClient.start("correct horse");
            ChannelBinding none = ChannelBinding.none();
            PakeKeys clientKeys = c.finish(s.salt(), s.serverShare()).keys("", "sn", "cn", none);
            assertThat(s.agree(c.clientShare()).keys("", "sn", "cn", none).clientProven(clientKeys.clientProof()))
                    .isTrue();
        }
    }
}
