package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Both halves of the PAKE login run against each other (the crypto only; the messages are the handlers'). */
class PakeLoginTest {
    private static final String TOKEN = "correct horse";
    private static final ChannelBinding SERVER_CERT = ChannelBinding.parse("sha256:" + "AB".repeat(32));
    private static final ChannelBinding OTHER_CERT = ChannelBinding.parse("sha256:" + "CD".repeat(32));

    private final String sn = LoginProof.newNonce();
    private final String cn = LoginProof.newNonce();

    @Test
    void theRightTokenAgreesOnProofsAndSessionKey() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        PakeClient client = PakeClient.start(TOKEN);
        PakeServer server = PakeServer.start(verifier);
        PakeKeys clientKeys = client.finish(server.salt(), server.serverPublic()).keys("alice", sn, cn, SERVER_CERT);
        PakeKeys serverKeys = server.agree(client.clientPublic()).keys("alice", sn, cn, SERVER_CERT);

        assertThat(serverKeys.clientProven(clientKeys.clientProof())).isTrue();
        assertThat(clientKeys.serverProven(serverKeys.serverProof())).isTrue();
        assertThat(clientKeys.sessionKey()).isEqualTo(serverKeys.sessionKey()).hasSize(64);
        assertThat(clientKeys.clientProof()).isNotEqualTo(clientKeys.serverProof()).isNotEqualTo(clientKeys.sessionKey());
    }

    @Test
    void aWrongTokenProvesNothingEitherWay() {
        PakeServer server = PakeServer.start(TokenVerifier.create(TOKEN));
        PakeClient client = PakeClient.start("correct hors");
        PakeKeys clientKeys = client.finish(server.salt(), server.serverPublic()).keys("", sn, cn, SERVER_CERT);
        PakeKeys serverKeys = server.agree(client.clientPublic()).keys("", sn, cn, SERVER_CERT);

        assertThat(serverKeys.clientProven(clientKeys.clientProof())).isFalse();
        assertThat(clientKeys.serverProven(serverKeys.serverProof())).isFalse();
    }

    @Test
    void proofsAreBoundToUserNoncesAndCertificate() {
        PakeClient client = PakeClient.start(TOKEN);
        PakeServer server = PakeServer.start(TokenVerifier.create(TOKEN));
        PakeSecret clientSecret = client.finish(server.salt(), server.serverPublic());
        PakeSecret serverSecret = server.agree(client.clientPublic());
        String proof = clientSecret.keys("alice", sn, cn, OTHER_CERT).clientProof();

        assertThat(serverSecret.keys("alice", sn, cn, SERVER_CERT).clientProven(proof)).isFalse();
        assertThat(serverSecret.keys("bob", sn, cn, OTHER_CERT).clientProven(proof)).isFalse();
        assertThat(serverSecret.keys("alice", LoginProof.newNonce(), cn, OTHER_CERT).clientProven(proof)).isFalse();
        assertThat(serverSecret.keys("alice", sn, LoginProof.newNonce(), OTHER_CERT).clientProven(proof)).isFalse();
        assertThat(serverSecret.keys("alice", sn, cn, OTHER_CERT).clientProven(proof)).isTrue();
    }

    @Test
    void aPublicValueOfZeroModNIsRefused() {
        PakeServer server = PakeServer.start(TokenVerifier.create(TOKEN));
        String n = PakeSuite.encode(PakeSuite.GROUP.getN().subtract(BigInteger.ONE).add(BigInteger.ONE).mod(
                PakeSuite.GROUP.getN()));
        assertThatThrownBy(() -> server.agree(n)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> server.agree("not base64!")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> server.agree(Base64.getEncoder().encodeToString(new byte[PakeSuite.LENGTH + 1])))
                .hasMessageContaining("expected: 1-256");
        PakeClient client = PakeClient.start(TOKEN);
        assertThatThrownBy(() -> client.finish(server.salt(), n)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aVerifierRoundTripsAndNeverPrintsItsValues() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        String text = verifier.format();

        assertThat(text).startsWith("srp6a-sha256-2048:");
        assertThat(TokenVerifier.parse(text)).isEqualTo(verifier);
        assertThat(TokenVerifier.parse(text).matches(TOKEN)).isTrue();
        assertThat(TokenVerifier.parse(text).matches(TOKEN + "x")).isFalse();
        assertThat(verifier.toString()).doesNotContain(text.split(":")[1]).doesNotContain(text.split(":")[2]);
        assertThat(TokenVerifier.create(TOKEN).format()).isNotEqualTo(text); // a fresh salt each time
    }

    @Test
    void aMalformedVerifierSaysWhatIsExpectedWithoutEchoingIt() {
        assertThatThrownBy(() -> TokenVerifier.parse("s3cret-looking"))
                .hasMessageContaining("srp6a-sha256-2048:<salt base64>:<verifier base64>")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> TokenVerifier.parse("srp6a-sha256-2048:AAAA:AAAA")).hasMessageContaining("salt of 3 bytes");
        assertThatThrownBy(() -> TokenVerifier.parse("srp6a-sha256-2048:" + "A".repeat(24) + ":%%%"))
                .hasMessageContaining("not base64");
    }
}
