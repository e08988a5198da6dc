package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.auth.LoginProof;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Nonces handed out ahead: each opens one work connection, within its lifetime, and a session holds few. */
@Timeout(10)
class IssuedNoncesTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final IssuedNonces nonces = new IssuedNonces(now::get);

    private void age(int seconds) {
        now.addAndGet(TimeUnit.SECONDS.toNanos(seconds));
    }

    @Test
    void eachIssuedNonceIsFreshAndWellFormed() {
        List<String> issued = nonces.issue(5);
        assertThat(issued).hasSize(5).doesNotHaveDuplicates().allMatch(LoginProof::wellFormedNonce);
        assertThat(nonces.outstanding()).isEqualTo(5);
    }

    @Test
    void aNonceIsValidOnceThenUnknown() {
        String nonce = nonces.issue(1).get(0);
        assertThat(nonces.take(nonce)).isEqualTo(IssuedNonces.Outcome.VALID);
        assertThat(nonces.take(nonce)).as("a replay").isEqualTo(IssuedNonces.Outcome.UNKNOWN);
        assertThat(nonces.outstanding()).isZero();
        assertThat(nonces.used()).isEqualTo(1);
    }

    @Test
    void aNonceNeverIssuedIsUnknown() {
        nonces.issue(3);
        assertThat(nonces.take(LoginProof.newNonce())).isEqualTo(IssuedNonces.Outcome.UNKNOWN);
        assertThat(nonces.outstanding()).as("nothing issued is spent by a guess").isEqualTo(3);
    }

    @Test
    void aNonceOlderThanItsLifetimeIsExpiredAndGone() {
        String nonce = nonces.issue(1).get(0);
        String young = nonces.issue(1).get(0);
        age(IssuedNonces.LIFETIME_SECONDS + 1);
        assertThat(nonces.take(nonce)).isEqualTo(IssuedNonces.Outcome.EXPIRED);
        assertThat(nonces.take(nonce)).isEqualTo(IssuedNonces.Outcome.UNKNOWN);
        nonces.issue(0); // issuing drops what expired
        assertThat(nonces.outstanding()).isZero();
        assertThat(nonces.take(young)).isEqualTo(IssuedNonces.Outcome.UNKNOWN);
    }

    @Test
    void aNonceWithinItsLifetimeIsValid() {
        String nonce = nonces.issue(1).get(0);
        age(IssuedNonces.LIFETIME_SECONDS);
        assertThat(nonces.take(nonce)).isEqualTo(IssuedNonces.Outcome.VALID);
    }

    @Test
    void aSessionHoldsAtMostSoManyAndGetsFewerBeyond() {
        assertThat(nonces.issue(IssuedNonces.MAX_OUTSTANDING + 10)).hasSize(IssuedNonces.MAX_OUTSTANDING);
        assertThat(nonces.issue(5)).as("the pool asks for these without nonces").isEmpty();
        assertThat(nonces.outstanding()).isEqualTo(IssuedNonces.MAX_OUTSTANDING);
    }

    @Test
    void usedAndExpiredNoncesMakeRoom() {
        List<String> all = nonces.issue(IssuedNonces.MAX_OUTSTANDING);
        nonces.take(all.get(0));
        assertThat(nonces.issue(5)).hasSize(1);
        age(IssuedNonces.LIFETIME_SECONDS + 1);
        assertThat(nonces.issue(5)).hasSize(5);
        assertThat(nonces.outstanding()).isEqualTo(5);
    }

    @Test
    void aSessionThatEndedForgetsItsNonces() {
        String nonce = nonces.issue(1).get(0);
        nonces.clear();
        assertThat(nonces.take(nonce)).isEqualTo(IssuedNonces.Outcome.UNKNOWN);
    }
}
