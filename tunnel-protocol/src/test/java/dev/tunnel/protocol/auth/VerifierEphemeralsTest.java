package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server's scalars with V computed ahead per verifier: used once, bounded, and a decoy pooled like an account. */
@Timeout(30)
class VerifierEphemeralsTest {
    private static final String TOKEN = "correct horse";
    /** A worker whose tasks run only when the test says so. */
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private final Ephemerals shared = new Ephemerals(tasks::add, Ephemerals.SERVER_SIZE);
    private final TokenVerifier alice = TokenVerifier.create(TOKEN);
    private final TokenVerifier decoyBase = TokenVerifier.unmatchable();
    private final VerifierEphemerals pools = new VerifierEphemerals(List.of(alice, decoyBase), tasks::add, shared);

    private void runTasks() {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            task.run();
        }
    }

    @Test
    void eachPooledVIsYTimesLOfItsVerifierAndIsHandedOutOnce() {
        pools.fillAll();
        assertThat(pools.ready(alice)).as("computed on the worker, not by the caller").isZero();
        runTasks();
        assertThat(pools.ready(alice)).isEqualTo(VerifierEphemerals.PER_VERIFIER);

        Set<BigInteger> seen = new HashSet<>();
        for (int i = 0; i < VerifierEphemerals.PER_VERIFIER; i++) {
            Ephemeral e = pools.take(alice);
            assertThat(seen.add(e.scalar)).as("scalar handed out twice").isTrue();
            assertThat(e.point).isEqualTo(PakeSuite.G.multiply(e.scalar).normalize());
            assertThat(e.timesL(alice)).isEqualTo(alice.l().multiply(e.scalar).normalize());
        }
        assertThat(pools.ready(alice)).isZero();
        Ephemeral fromShared = pools.take(alice); // the pool is empty: a scalar of the shared pool, without V
        assertThat(seen).doesNotContain(fromShared.scalar);
        assertThat(fromShared.timesL(alice)).isNull();
        assertThat(tasks).as("taking starts no computation that would compete with the login").isEmpty();

        pools.refill(alice); // the login is answered
        runTasks();
        assertThat(pools.ready(alice)).isEqualTo(VerifierEphemerals.PER_VERIFIER);
        assertThat(pools.take(alice).scalar).isNotIn(seen);
    }

    @Test
    void aDecoyTakesFromItsBasesPoolAsAnAccountTakesFromItsOwn() {
        pools.fillAll();
        runTasks();
        TokenVerifier mallory = decoyBase.decoy(new byte[TokenVerifier.SALT_BYTES]);
        TokenVerifier trudy = decoyBase.decoy(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});

        assertThat(pools.ready(mallory)).isEqualTo(pools.ready(alice)).isEqualTo(VerifierEphemerals.PER_VERIFIER);
        Ephemeral forDecoy = pools.take(mallory);
        Ephemeral forAccount = pools.take(alice);
        assertThat(forDecoy.timesL(mallory)).as("V ahead for the decoy").isNotNull();
        assertThat(forAccount.timesL(alice)).as("V ahead for the account").isNotNull();
        assertThat(PakeServer.start(mallory, forDecoy).vComputedAhead()).isTrue();
        assertThat(PakeServer.start(alice, forAccount).vComputedAhead()).isTrue();
        assertThat(pools.ready(trudy)).as("decoys share their base's pool").isEqualTo(pools.ready(mallory))
                .isEqualTo(pools.ready(alice)).isEqualTo(VerifierEphemerals.PER_VERIFIER - 1);
    }

    @Test
    void aVComputedForOneVerifierIsNeverUsedForAnother() {
        pools.fillAll();
        runTasks();
        Ephemeral e = pools.take(alice);
        assertThat(e.timesL(decoyBase)).isNull();
        assertThat(PakeServer.start(decoyBase, e).vComputedAhead()).isFalse();
        TokenVerifier unknown = TokenVerifier.create(TOKEN); // not one of this server's
        assertThat(pools.take(unknown).timesL(unknown)).isNull();
    }

    @Test
    void thePoolsStayWithinTheirBoundWhateverTheNumberOfVerifiers() {
        assertThat(VerifierEphemerals.capacity(1)).isEqualTo(VerifierEphemerals.PER_VERIFIER);
        assertThat(VerifierEphemerals.capacity(VerifierEphemerals.TOTAL)).isEqualTo(1);
        assertThat(VerifierEphemerals.capacity(10 * VerifierEphemerals.TOTAL)).isEqualTo(1);

        List<TokenVerifier> many = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            many.add(TokenVerifier.unmatchable());
        }
        VerifierEphemerals bounded = new VerifierEphemerals(many, tasks::add, shared);
        bounded.fillAll();
        runTasks();
        int total = many.stream().mapToInt(bounded::ready).sum();
        assertThat(total).isPositive().isLessThanOrEqualTo(VerifierEphemerals.TOTAL);
        assertThat(many).allSatisfy(v -> assertThat(bounded.ready(v)).isEqualTo(VerifierEphemerals.capacity(40)));
    }

    @Test
    void aLoginWithVComputedAheadAgreesAndOffersOnlyZ() {
        pools.fillAll();
        runTasks();
        ChannelBinding none = ChannelBinding.none();
        PakeClient.start(TOKEN).finish(alice.saltText(), PakeServer.start(alice).serverShare()); // w0, w1 in memory

        PakeServer late = PakeServer.start(alice, pools.take(alice));
        late.prepare(tasks::add, ""); // the share follows the challenge: nothing to compute before it
        assertThat(tasks).isEmpty();
        PakeClient client = PakeClient.start(TOKEN);
        PakeKeys clientKeys = client.finish(late.salt(), late.serverShare()).keys("", "sn", "cn", none);
        assertThat(late.agree(client.clientShare()).keys("", "sn", "cn", none).clientProven(clientKeys.clientProof()))
                .isTrue();

        PakeServer early = PakeServer.start(alice, pools.take(alice));
        PakeClient second = PakeClient.start(TOKEN);
        early.prepare(tasks::add, second.early(alice.saltText()));
        assertThat(tasks).as("Z offered").hasSize(1);
        runTasks();
        PakeKeys secondKeys = second.finish(early.salt(), early.serverShare()).keys("", "sn", "cn", none);
        assertThat(early.agreed().keys("", "sn", "cn", none).clientProven(secondKeys.clientProof())).isTrue();
        assertThat(early.preparedByHelper()).isTrue();
    }
}
