package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LaneProofTest {
    private static final ChannelBinding CERT = ChannelBinding.parse("sha256:" + "ab".repeat(32));
    private static final ChannelBinding OTHER = ChannelBinding.parse("sha256:" + "cd".repeat(32));

    @Test
    void verifiesOnlyTheExactInputs() {
        String sn = LoginProof.newNonce();
        String cn = LoginProof.newNonce();
        String proof = LaneProof.compute("secret", "alice", "7", sn, cn, CERT);

        assertThat(LaneProof.verify("secret", "alice", "7", sn, cn, CERT, proof)).isTrue();
        assertThat(LaneProof.verify("other", "alice", "7", sn, cn, CERT, proof)).isFalse();
        assertThat(LaneProof.verify("secret", "bob", "7", sn, cn, CERT, proof)).isFalse();
        assertThat(LaneProof.verify("secret", "alice", "8", sn, cn, CERT, proof)).isFalse();
        assertThat(LaneProof.verify("secret", "alice", "7", LoginProof.newNonce(), cn, CERT, proof))
                .as("a recorded proof does not answer a new challenge").isFalse();
        assertThat(LaneProof.verify("secret", "alice", "7", sn, LoginProof.newNonce(), CERT, proof)).isFalse();
        assertThat(LaneProof.verify("secret", "alice", "7", sn, cn, OTHER, proof)).isFalse();
        assertThat(LaneProof.verify("secret", "alice", "7", sn, cn, ChannelBinding.none(), proof)).isFalse();
        assertThat(proof).doesNotContain("secret").hasSize(64);
    }

    @Test
    void isNotAWorkConnectionProof() {
        String sn = LoginProof.newNonce();
        String cn = LoginProof.newNonce();
        assertThat(LaneProof.compute("secret", "alice", "7", sn, cn, CERT))
                .isNotEqualTo(WorkConnProof.compute("secret", "alice", "7", sn, cn, CERT));
    }

    @Test
    void isNotALoginProof() {
        String sn = LoginProof.newNonce();
        String cn = LoginProof.newNonce();
        assertThat(LaneProof.compute("secret", "", "", sn, cn, CERT))
                .isNotEqualTo(LoginProof.client("secret", "", sn, cn, CERT))
                .isNotEqualTo(LoginProof.server("secret", "", sn, cn, CERT));
    }

    @Test
    void emptyTokenWorks() {
        String sn = LoginProof.newNonce();
        String cn = LoginProof.newNonce();
        String proof = LaneProof.compute("", "", "1", sn, cn, ChannelBinding.none());
        assertThat(LaneProof.verify("", "", "1", sn, cn, ChannelBinding.none(), proof)).isTrue();
    }
}
