package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import org.bouncycastle.math.ec.ECPoint;
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
        PakeKeys clientKeys = client.finish(server.salt(), server.serverShare()).keys("alice", sn, cn, SERVER_CERT);
        PakeKeys serverKeys = server.agree(client.clientShare()).keys("alice", sn, cn, SERVER_CERT);

        assertThat(serverKeys.clientProven(clientKeys.clientProof())).isTrue();
        assertThat(clientKeys.serverProven(serverKeys.serverProof())).isTrue();
        assertThat(clientKeys.sessionKey()).isEqualTo(serverKeys.sessionKey()).hasSize(64);
        assertThat(clientKeys.clientProof()).isNotEqualTo(clientKeys.serverProof()).isNotEqualTo(clientKeys.sessionKey());
    }

    @Test
    void aWrongTokenProvesNothingEitherWay() {
        PakeServer server = PakeServer.start(TokenVerifier.create(TOKEN));
        PakeClient client = PakeClient.start("correct hors");
        PakeKeys clientKeys = client.finish(server.salt(), server.serverShare()).keys("", sn, cn, SERVER_CERT);
        PakeKeys serverKeys = server.agree(client.clientShare()).keys("", sn, cn, SERVER_CERT);

        assertThat(serverKeys.clientProven(clientKeys.clientProof())).isFalse();
        assertThat(clientKeys.serverProven(serverKeys.serverProof())).isFalse();
    }

    @Test
    void proofsAreBoundToUserNoncesAndCertificate() {
        PakeClient client = PakeClient.start(TOKEN);
        PakeServer server = PakeServer.start(TokenVerifier.create(TOKEN));
        PakeSecret clientSecret = client.finish(server.salt(), server.serverShare());
        PakeSecret serverSecret = server.agree(client.clientShare());
        String proof = clientSecret.keys("alice", sn, cn, OTHER_CERT).clientProof();

        assertThat(serverSecret.keys("alice", sn, cn, SERVER_CERT).clientProven(proof)).isFalse();
        assertThat(serverSecret.keys("bob", sn, cn, OTHER_CERT).clientProven(proof)).isFalse();
        assertThat(serverSecret.keys("alice", LoginProof.newNonce(), cn, OTHER_CERT).clientProven(proof)).isFalse();
        assertThat(serverSecret.keys("alice", sn, LoginProof.newNonce(), OTHER_CERT).clientProven(proof)).isFalse();
        assertThat(serverSecret.keys("alice", sn, cn, OTHER_CERT).clientProven(proof)).isTrue();
    }

    @Test
    void sharesOffTheCurveOrCancellingW0AreRefused() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        PakeServer server = PakeServer.start(verifier);
        byte[] offCurve = PakeSuite.encodePoint(PakeSuite.G);
        offCurve[64] ^= 1;
        String bad = Base64.getEncoder().encodeToString(offCurve);
        assertThatThrownBy(() -> server.agree(bad)).hasMessageContaining("not on P-256");
        assertThatThrownBy(() -> server.agree("not base64!")).hasMessageContaining("not base64");
        assertThatThrownBy(() -> server.agree(Base64.getEncoder().encodeToString(new byte[33])))
                .hasMessageContaining("not an uncompressed P-256 point");
        // X = w0·M makes X - w0·M the identity, which would make Z independent of y: refused
        assertThatThrownBy(() -> server.agree(PakeSuite.encode(verifier.w0m()))).hasMessageContaining("identity");
        PakeClient client = PakeClient.start(TOKEN);
        assertThatThrownBy(() -> client.finish(server.salt(), bad)).hasMessageContaining("not on P-256");
        assertThatThrownBy(() -> client.finish(server.salt(), PakeSuite.encode(verifier.w0n())))
                .hasMessageContaining("identity");
        assertThatThrownBy(() -> client.finish("AAAA", server.serverShare())).hasMessageContaining("3 bytes");
    }

    @Test
    void anEarlyShareForTheSaltTheServerGivesIsTheOneBothSidesUse() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        PakeClient warm = PakeClient.start(TOKEN);
        warm.finish(verifier.saltText(), PakeServer.start(verifier).serverShare()); // w0, w1 now in memory

        PakeClient client = PakeClient.start(TOKEN);
        String early = client.early(verifier.saltText());
        PakeServer server = PakeServer.start(verifier);
        PakeKeys clientKeys = client.finish(server.salt(), server.serverShare()).keys("", sn, cn, SERVER_CERT);

        assertThat(early).isNotEmpty();
        assertThat(client.sentEarly(server.salt())).isTrue();
        assertThat(client.clientShare()).isEqualTo(early);
        assertThat(server.agree(early).keys("", sn, cn, SERVER_CERT).clientProven(clientKeys.clientProof())).isTrue();
    }

    @Test
    void theClientsVAgreesWhetherAHelperThreadComputedItOrTheCallerDid() throws Exception {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        java.util.List<Runnable> neverRun = new java.util.ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            for (java.util.concurrent.Executor helper : java.util.List.<java.util.concurrent.Executor>of(
                    Runnable::run, neverRun::add, pool)) {
                PakeClient client = PakeClient.start(TOKEN, Ephemerals.Ephemeral.fresh(), helper);
                PakeServer server = PakeServer.start(verifier);
                PakeKeys clientKeys = client.finish(server.salt(), server.serverShare()).keys("", sn, cn, SERVER_CERT);
                PakeKeys serverKeys = server.agree(client.clientShare()).keys("", sn, cn, SERVER_CERT);

                assertThat(serverKeys.clientProven(clientKeys.clientProof())).as("helper %s", helper).isTrue();
                assertThat(clientKeys.serverProven(serverKeys.serverProof())).isTrue();
            }
            assertThat(neverRun).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theServersVAndTheHellosZAgreeWhetherTheWorkerOrTheLoopComputedThem() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        PakeClient.start(TOKEN).finish(verifier.saltText(), PakeServer.start(verifier).serverShare()); // w0, w1 in memory
        java.util.List<Runnable> late = new java.util.ArrayList<>();
        for (boolean workerFirst : new boolean[] {true, false}) {
            PakeClient client = PakeClient.start(TOKEN);
            String early = client.early(verifier.saltText());
            PakeServer server = PakeServer.start(verifier);
            server.prepare(workerFirst ? Runnable::run : late::add, early);
            PakeKeys clientKeys = client.finish(server.salt(), server.serverShare()).keys("", sn, cn, SERVER_CERT);

            assertThat(server.hasEarlyShare()).isTrue();
            assertThat(server.agreed().keys("", sn, cn, SERVER_CERT).clientProven(clientKeys.clientProof())).isTrue();
            assertThat(server.preparedByHelper()).isEqualTo(workerFirst);
            assertThatThrownBy(() -> server.agree(early)).isInstanceOf(IllegalStateException.class);
        }
        late.forEach(Runnable::run); // the worker reaches the loop's computation late: it does nothing
    }

    @Test
    void theServersVFromTheWorkerServesAShareThatFollowsTheChallenge() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        PakeServer server = PakeServer.start(verifier);
        server.prepare(Runnable::run, "");
        PakeClient client = PakeClient.start(TOKEN);
        PakeKeys clientKeys = client.finish(server.salt(), server.serverShare()).keys("", sn, cn, SERVER_CERT);

        assertThat(server.hasEarlyShare()).isFalse();
        assertThat(server.agree(client.clientShare()).keys("", sn, cn, SERVER_CERT).clientProven(clientKeys.clientProof()))
                .isTrue();
        assertThat(server.preparedByHelper()).isTrue();
        assertThatThrownBy(server::agreed).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aHellosShareOffTheCurveIsRefusedBeforeAnythingIsOffered() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        java.util.List<Runnable> offered = new java.util.ArrayList<>();

        assertThatThrownBy(() -> PakeServer.start(verifier).prepare(offered::add, PakeSuite.encode(verifier.w0m())))
                .hasMessageContaining("identity");
        assertThat(offered).isEmpty();
    }

    @Test
    void anEarlyShareForAnotherSaltIsNeverFollowedByAShareFromTheSameScalar() {
        TokenVerifier old = TokenVerifier.create(TOKEN);
        TokenVerifier now = TokenVerifier.create(TOKEN);
        PakeClient.start(TOKEN).finish(old.saltText(), PakeServer.start(old).serverShare());

        PakeClient client = PakeClient.start(TOKEN);
        ECPoint earlyX = PakeSuite.decode(client.early(old.saltText()), "X");
        PakeServer server = PakeServer.start(now);
        PakeKeys clientKeys = client.finish(server.salt(), server.serverShare()).keys("", sn, cn, SERVER_CERT);
        ECPoint lateX = PakeSuite.decode(client.clientShare(), "X");

        assertThat(client.sentEarly(server.salt())).isFalse();
        // with one x, X' - w0'·M = X - w0·M: a fake server could test token guesses with that equation
        ECPoint earlyXP = earlyX.subtract(old.w0m()).normalize();
        ECPoint lateXP = lateX.subtract(now.w0m()).normalize();
        assertThat(lateXP).isNotEqualTo(earlyXP);
        assertThat(server.agree(client.clientShare()).keys("", sn, cn, SERVER_CERT).clientProven(clientKeys.clientProof()))
                .isTrue();
    }

    @Test
    void aVerifierRoundTripsAndNeverPrintsItsValues() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        String text = verifier.format();

        assertThat(text).startsWith("spake2plus-p256-sha256:");
        assertThat(TokenVerifier.parse(text)).isEqualTo(verifier);
        assertThat(TokenVerifier.parse(text).matches(TOKEN)).isTrue();
        assertThat(TokenVerifier.parse(text).matches(TOKEN + "x")).isFalse();
        assertThat(verifier.toString()).doesNotContain(text.split(":")[1]).doesNotContain(text.split(":")[2])
                .doesNotContain(text.split(":")[3]);
        assertThat(TokenVerifier.create(TOKEN).format()).isNotEqualTo(text); // a fresh salt each time
    }

    @Test
    void aDecoyReusesItsVerifiersPrecomputedPointsYetMatchesNoTokenAndGivesAnotherSalt() {
        TokenVerifier verifier = TokenVerifier.create(TOKEN);
        TokenVerifier decoy = verifier.decoy(new byte[TokenVerifier.SALT_BYTES]);

        // the points computed once per verifier (w0·M, w0·N, L with its comb table) are shared, not recomputed
        assertThat(decoy.w0m()).isSameAs(verifier.w0m());
        assertThat(decoy.w0n()).isSameAs(verifier.w0n());
        assertThat(decoy.l()).isSameAs(verifier.l());
        assertThat(decoy.saltText()).isNotEqualTo(verifier.saltText());
        assertThat(decoy.matches(TOKEN)).isFalse();
        // V with the comb table of L is y·L as a plain multiplication computes it
        BigInteger y = PakeSuite.randomScalar();
        assertThat(verifier.timesL(y)).isEqualTo(verifier.l().multiply(y).normalize());
    }

    @Test
    void aMalformedVerifierSaysWhatIsExpectedWithoutEchoingIt() {
        assertThatThrownBy(() -> TokenVerifier.parse("s3cret-looking"))
                .hasMessageContaining("spake2plus-p256-sha256:<salt base64>:<w0 base64>:<L base64>")
                .hasMessageNotContaining("s3cret");
        String w0 = Base64.getEncoder().encodeToString(new byte[32]);
        String l = PakeSuite.encode(PakeSuite.G);
        assertThatThrownBy(() -> TokenVerifier.parse("spake2plus-p256-sha256:AAAA:" + w0 + ":" + l))
                .hasMessageContaining("salt of 3 bytes");
        assertThatThrownBy(() -> TokenVerifier.parse("spake2plus-p256-sha256:" + "A".repeat(24) + ":%%%:" + l))
                .hasMessageContaining("not base64");
        assertThatThrownBy(() -> TokenVerifier.parse("spake2plus-p256-sha256:" + "A".repeat(24) + ":"
                + Base64.getEncoder().encodeToString(PakeSuite.scalarBytes(PakeSuite.ORDER)) + ":" + l))
                .hasMessageContaining("w0 is out of range");
        // an SRP-6a verifier of the unreleased first PAKE login is refused with the expected format
        assertThatThrownBy(() -> TokenVerifier.parse("srp6a-sha256-2048:AAAA:AAAA"))
                .hasMessageContaining("not a token verifier (expected: spake2plus-p256-sha256:");
    }
}
