package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The visitor proof verifies only with the same key, proxy, session nonce, stream and nonce. */
@Timeout(20)
class VisitorProofTest {
    private static final String SN = LoginProof.newNonce();
    private static final String CN = LoginProof.newNonce();

    private static String proof(String key) {
        return VisitorProof.compute(key, "stcp", "bob", "alice", "ssh", SN, 4, CN);
    }

    @Test
    void theRightKeyVerifies() {
        assertThat(VisitorProof.verify("s3cret", "stcp", "bob", "alice", "ssh", SN, 4, CN, proof("s3cret"))).isTrue();
    }

    @Test
    void aWrongKeyDoesNotVerify() {
        assertThat(VisitorProof.verify("s3cret", "stcp", "bob", "alice", "ssh", SN, 4, CN, proof("guess"))).isFalse();
    }

    @Test
    void aProofReplayedOnAnotherSessionOrStreamDoesNotVerify() {
        String p = proof("s3cret");
        assertThat(VisitorProof.verify("s3cret", "stcp", "bob", "alice", "ssh", LoginProof.newNonce(), 4, CN, p)).isFalse();
        assertThat(VisitorProof.verify("s3cret", "stcp", "bob", "alice", "ssh", SN, 6, CN, p)).isFalse();
    }

    @Test
    void aProofForOneProxyTypeOrUserDoesNotVerifyForAnother() {
        String p = proof("s3cret");
        assertThat(VisitorProof.verify("s3cret", "sudp", "bob", "alice", "ssh", SN, 4, CN, p)).isFalse();
        assertThat(VisitorProof.verify("s3cret", "stcp", "eve", "alice", "ssh", SN, 4, CN, p)).isFalse();
        assertThat(VisitorProof.verify("s3cret", "stcp", "bob", "alice", "web", SN, 4, CN, p)).isFalse();
    }

    @Test
    void theKeyItselfIsNotInTheProof() {
        assertThat(proof("s3cret")).doesNotContain("s3cret").hasSize(64);
    }
}
