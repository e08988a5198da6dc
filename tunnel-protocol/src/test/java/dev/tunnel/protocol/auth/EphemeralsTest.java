package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Queue;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Precomputed exponents: computed on the worker, each handed out once, refilled; for the server and the client. */
@Timeout(20)
class EphemeralsTest {
    /** A worker whose tasks run only when the test says so. */
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private final Ephemerals server = new Ephemerals(tasks::add, PakeSuite.SERVER_EXPONENT_BITS, Ephemerals.SERVER_SIZE);
    private final Ephemerals client = new Ephemerals(tasks::add, PakeSuite.CLIENT_EXPONENT_BITS, Ephemerals.CLIENT_SIZE);

    private void runTasks() {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            task.run();
        }
    }

    @Test
    void exponentsAreComputedOnTheWorkerNotByTheCallerAndTheFirstTakeFindsNoneReady() {
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
    void eachExponentIsHandedOutOnceAndARefillAfterTheLoginRestoresThePool() {
        for (Ephemerals pool : new Ephemerals[] {server, client}) {
            pool.refill();
            runTasks();
            int size = pool.ready();
            Set<BigInteger> seen = new HashSet<>();
            for (int i = 0; i < 3 * size; i++) {
                Ephemeral e = pool.poll();
                assertThat(e).isNotNull();
                assertThat(seen.add(e.exponent)).as("exponent handed out twice").isTrue();
                assertThat(e.power).isEqualTo(PakeSuite.GROUP.getG().modPow(e.exponent, PakeSuite.GROUP.getN()));
                assertThat(e.exponent.bitLength()).isEqualTo(pool.bits());
                assertThat(tasks).isEmpty();
                pool.refill();
                runTasks();
                assertThat(pool.ready()).isEqualTo(size);
            }
        }
    }

    @Test
    void takeComputesAFreshExponentWhenNoneIsReady() {
        Ephemeral e = client.take();
        assertThat(e.exponent.bitLength()).isEqualTo(PakeSuite.CLIENT_EXPONENT_BITS);
        assertThat(tasks).hasSize(1); // and the refill for the next login is queued
    }

    @Test
    void aLoginFromPrecomputedExponentsOnBothSidesAgrees() {
        server.refill();
        client.refill();
        runTasks();
        TokenVerifier verifier = TokenVerifier.create("correct horse");
        PakeServer s = PakeServer.start(verifier, server.poll());
        PakeClient c = PakeClient.start("correct horse", client.poll());
        ChannelBinding none = ChannelBinding.none();
        PakeKeys clientKeys = c.finish(s.salt(), s.serverPublic()).keys("", "sn", "cn", none);
        PakeKeys serverKeys = s.agree(c.clientPublic()).keys("", "sn", "cn", none);
        assertThat(serverKeys.clientProven(clientKeys.clientProof())).isTrue();
        assertThat(clientKeys.serverProven(serverKeys.serverProof())).isTrue();
    }

    @Test
    void theClientRefusesAServerSizedExponent() {
        server.refill();
        runTasks();
        assertThatThrownBy(() -> PakeClient.start("correct horse", server.poll()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("640 bits");
    }

    @Test
    void aSecondLoginOfTheSameClientToTheSameAccountStillAgrees() {
        TokenVerifier verifier = TokenVerifier.create("correct horse");
        for (int i = 0; i < 2; i++) { // the second finds k·g^x in KnownVerifiers
            PakeServer s = PakeServer.start(verifier);
            PakeClient c = PakeClient.start("correct horse");
            ChannelBinding none = ChannelBinding.none();
            PakeKeys clientKeys = c.finish(s.salt(), s.serverPublic()).keys("", "sn", "cn", none);
            assertThat(s.agree(c.clientPublic()).keys("", "sn", "cn", none).clientProven(clientKeys.clientProof()))
                    .isTrue();
        }
    }
}
