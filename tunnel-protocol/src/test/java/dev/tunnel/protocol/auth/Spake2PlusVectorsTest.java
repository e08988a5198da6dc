package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.bouncycastle.math.ec.ECPoint;
import org.junit.jupiter.api.Test;

/**
 * RFC 9383, appendix C, the {@code SPAKE2+-P256-SHA256-HKDF-SHA256-HMAC-SHA256} vectors: each side's
 * formulas ({@link PakeClient}, {@link PakeServer}) and the key schedule ({@link KeySchedule}) give
 * the RFC's shares, Z, V, TT, K_main, confirmation keys, confirmation MACs and shared key.
 */
class Spake2PlusVectorsTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] CONTEXT = "SPAKE2+-P256-SHA256-HKDF-SHA256-HMAC-SHA256 Test Vectors"
            .getBytes(StandardCharsets.US_ASCII);
    private static final BigInteger W0 = num("bb8e1bbcf3c48f62c08db243652ae55d3e5586053fca77102994f23ad95491b3");
    private static final BigInteger W1 = num("7e945f34d78785b8a3ef44d0df5a1a97d6b3b460409a345ca7830387a74b1dba");
    private static final String L = "04eb7c9db3d9a9eb1f8adab81b5794c1f13ae3e225efbe91ea487425854c7fc00f00bfedcbd09b2400142d40a14f2064ef31dfaa903b91d1faea7093d835966efd";
    private static final BigInteger X = num("d1232c8e8693d02368976c174e2088851b8365d0d79a9eee709c6a05a2fad539");
    private static final String SHARE_P = "04ef3bd051bf78a2234ec0df197f7828060fe9856503579bb1733009042c15c0c1de127727f418b5966afadfdd95a6e4591d171056b333dab97a79c7193e341727";
    private static final BigInteger Y = num("717a72348a182085109c8d3917d6c43d59b224dc6a7fc4f0483232fa6516d8b3");
    private static final String SHARE_V = "04c0f65da0d11927bdf5d560c69e1d7d939a05b0e88291887d679fcadea75810fb5cc1ca7494db39e82ff2f50665255d76173e09986ab46742c798a9a68437b048";
    private static final String Z = "04bbfce7dd7f277819c8da21544afb7964705569bdf12fb92aa388059408d50091a0c5f1d3127f56813b5337f9e4e67e2ca633117a4fbd559946ab474356c41839";
    private static final String V = "0458bf27c6bca011c9ce1930e8984a797a3419797b936629a5a937cf2f11c8b9514b82b993da8a46e664f23db7c01edc87faa530db01c2ee405230b18997f16b68";
    private static final String K_MAIN = "4c59e1ccf2cfb961aa31bd9434478a1089b56cd11542f53d3576fb6c2a438a29";
    private static final String K_CONFIRM_P = "871ae3f7b78445e34438fb284504240239031c39d80ac23eb5ab9be5ad6db58a";
    private static final String K_CONFIRM_V = "ccd53c7c1fa37b64a462b40db8be101cedcf838950162902054e644b400f1680";
    private static final String CONFIRM_P = "926cc713504b9b4d76c9162ded04b5493e89109f6d89462cd33adc46fda27527";
    private static final String CONFIRM_V = "9747bcc4f8fe9f63defee53ac9b07876d907d55047e6ff2def2e7529089d3e68";
    private static final String K_SHARED = "0c5f8ccd1413423a54f6c1fb26ff01534a87f893779c6e68666d772bfd91f3e7";

    private static BigInteger num(String hex) {
        return new BigInteger(hex, 16);
    }

    private static String hex(ECPoint p) {
        return HEX.formatHex(PakeSuite.encodePoint(p));
    }

    @Test
    void lIsW1TimesTheBasePoint() {
        assertThat(hex(PakeSuite.base(W1))).isEqualTo(L);
    }

    @Test
    void theSharesAreTheRfcs() {
        PakeClient client = PakeClient.start("unused", Ephemeral.of(X));
        PakeServer server = PakeServer.start(verifier(), Ephemeral.of(Y));
        client.finish(new ProverSecrets(W0, W1), point(SHARE_V));

        assertThat(HEX.formatHex(java.util.Base64.getDecoder().decode(client.clientShare()))).isEqualTo(SHARE_P);
        assertThat(HEX.formatHex(java.util.Base64.getDecoder().decode(server.serverShare()))).isEqualTo(SHARE_V);
    }

    @Test
    void bothSidesComputeTheRfcsTranscriptKeysAndConfirmations() {
        PakeSecret clientSecret = PakeClient.start("unused", Ephemeral.of(X)).finish(new ProverSecrets(W0, W1), point(SHARE_V));
        PakeSecret serverSecret = PakeServer.start(verifier(), Ephemeral.of(Y)).agree(point(SHARE_P));

        for (PakeSecret secret : new PakeSecret[] {clientSecret, serverSecret}) {
            KeySchedule s = rfcSchedule(secret);
            assertThat(HEX.formatHex(s.main())).isEqualTo(K_MAIN);
            assertThat(HEX.formatHex(s.confirmKeyP())).isEqualTo(K_CONFIRM_P);
            assertThat(HEX.formatHex(s.confirmKeyV())).isEqualTo(K_CONFIRM_V);
            assertThat(HEX.formatHex(s.confirmP())).isEqualTo(CONFIRM_P);
            assertThat(HEX.formatHex(s.confirmV())).isEqualTo(CONFIRM_V);
            assertThat(HEX.formatHex(s.shared())).isEqualTo(K_SHARED);
            String tt = HEX.formatHex(s.transcript());
            assertThat(tt).contains(Z).contains(V).contains(SHARE_P).contains(SHARE_V)
                    .endsWith("2000000000000000" + "bb8e1bbcf3c48f62c08db243652ae55d3e5586053fca77102994f23ad95491b3");
        }
    }

    /** The RFC's context and identities over what {@code secret} holds (the login uses its own, {@link PakeSecret#keys}). */
    private static KeySchedule rfcSchedule(PakeSecret secret) {
        return secret.scheduleFor(CONTEXT, "client".getBytes(StandardCharsets.US_ASCII),
                "server".getBytes(StandardCharsets.US_ASCII));
    }

    private static TokenVerifier verifier() {
        return TokenVerifier.parse(PakeSuite.NAME + ":" + "A".repeat(24) + ":"
                + java.util.Base64.getEncoder().encodeToString(PakeSuite.scalarBytes(W0)) + ":"
                + java.util.Base64.getEncoder().encodeToString(HEX.parseHex(L)));
    }

    private static ECPoint point(String hex) {
        return PakeSuite.curve().decodePoint(HEX.parseHex(hex)).normalize();
    }
}
