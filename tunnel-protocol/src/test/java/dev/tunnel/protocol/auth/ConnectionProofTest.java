package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ConnectionProofTest {
    /** What the classes this enum replaced computed for the inputs of {@link #theWireFormatIsTheOneDeployedPeersCompute}. */
    private static final String WORK_KAT = "9b800b6633d504fce5984538b91ecad859924785b27a2a8e822ade39c6671101";
    private static final ChannelBinding CERT = ChannelBinding.parse("sha256:" + "ab".repeat(32));
    private static final ChannelBinding OTHER = ChannelBinding.parse("sha256:" + "cd".repeat(32));

    @ParameterizedTest
    @EnumSource(ConnectionProof.class)
    void verifiesOnlyTheExactInputs(ConnectionProof kind) {
        String sn = LoginProof.newNonce();
        String cn = LoginProof.newNonce();
        String proof = kind.compute("secret", "alice", "7", sn, cn, CERT);

        assertThat(kind.verify("secret", "alice", "7", sn, cn, CERT, proof)).isTrue();
        assertThat(kind.verify("other", "alice", "7", sn, cn, CERT, proof)).isFalse();
        assertThat(kind.verify("secret", "bob", "7", sn, cn, CERT, proof)).isFalse();
        assertThat(kind.verify("secret", "alice", "8", sn, cn, CERT, proof)).isFalse();
        assertThat(kind.verify("secret", "alice", "7", LoginProof.newNonce(), cn, CERT, proof))
                .as("a recorded proof does not answer a new challenge").isFalse();
        assertThat(kind.verify("secret", "alice", "7", sn, LoginProof.newNonce(), CERT, proof)).isFalse();
        assertThat(kind.verify("secret", "alice", "7", sn, cn, OTHER, proof)).isFalse();
        assertThat(kind.verify("secret", "alice", "7", sn, cn, ChannelBinding.none(), proof)).isFalse();
        assertThat(proof).doesNotContain("secret").hasSize(64);
    }

    @ParameterizedTest
    @EnumSource(ConnectionProof.class)
    void isNotALoginProof(ConnectionProof kind) {
        String sn = LoginProof.newNonce();
        String cn = LoginProof.newNonce();
        assertThat(kind.compute("secret", "", "", sn, cn, CERT))
                .isNotEqualTo(LoginProof.client("secret", "", sn, cn, CERT))
                .isNotEqualTo(LoginProof.server("secret", "", sn, cn, CERT));
    }

    @ParameterizedTest
    @EnumSource(ConnectionProof.class)
    void emptyTokenWorks(ConnectionProof kind) {
        String sn = LoginProof.newNonce();
        String cn = LoginProof.newNonce();
        String proof = kind.compute("", "", "1", sn, cn, ChannelBinding.none());
        assertThat(kind.verify("", "", "1", sn, cn, ChannelBinding.none(), proof)).isTrue();
    }

    @Test
    void theWireFormatIsTheOneDeployedPeersCompute() {
        String sn = "11".repeat(32);
        String cn = "22".repeat(32);
        assertThat(ConnectionProof.WORK_CONN.compute("secret", "alice", "7", sn, cn, CERT)).isEqualTo(WORK_KAT);
    }
}
