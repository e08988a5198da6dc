package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import org.bouncycastle.crypto.agreement.srp.SRP6Client;
import org.bouncycastle.crypto.agreement.srp.SRP6Server;
import org.bouncycastle.crypto.agreement.srp.SRP6StandardGroups;
import org.bouncycastle.crypto.agreement.srp.SRP6Util;
import org.bouncycastle.crypto.agreement.srp.SRP6VerifierGenerator;
import org.bouncycastle.crypto.digests.SHA1Digest;
import org.bouncycastle.crypto.params.SRP6GroupParameters;
import org.junit.jupiter.api.Test;

/**
 * The SRP-6a primitive against RFC 5054 Appendix B (1024-bit group, SHA-1, I = "alice",
 * P = "password123"), run through the same BouncyCastle classes the login uses with SHA-256 and
 * the 2048-bit group, and the formulas {@link PakeServer} and {@link PakeClient} write out
 * (with a precomputed {@code g^b}, a cached {@code k·g^x} and no blinding) on the same vectors.
 */
class SrpVectorsTest {
    private static final SRP6GroupParameters GROUP = SRP6StandardGroups.rfc5054_1024;
    private static final byte[] I = "alice".getBytes(StandardCharsets.UTF_8);
    private static final byte[] P = "password123".getBytes(StandardCharsets.UTF_8);
    private static final byte[] SALT = java.util.HexFormat.of().parseHex("BEB25379D1A8581EB5A727673A2441EE");
    private static final BigInteger K = hex("7556AA04 5AEF2CDD 07ABAF0F 665C3E81 8913186F");
    private static final BigInteger X = hex("94B7555A ABE9127C C58CCF49 93DB6CF8 4D16C124");
    private static final BigInteger V = hex("7E273DE8 696FFC4F 4E337D05 B4B375BE B0DDE156 9E8FA00A 9886D812"
            + "9BADA1F1 822223CA 1A605B53 0E379BA4 729FDC59 F105B478 7E5186F5"
            + "C671085A 1447B52A 48CF1970 B4FB6F84 00BBF4CE BFBB1681 52E08AB5"
            + "EA53D15C 1AFF87B2 B9DA6E04 E058AD51 CC72BFC9 033B564E 26480D78"
            + "E955A5E2 9E7AB245 DB2BE315 E2099AFB");
    private static final BigInteger A_PRIVATE = hex("60975527 035CF2AD 1989806F 0407210B C81EDC04 E2762A56 AFD529DD DA2D4393");
    private static final BigInteger B_PRIVATE = hex("E487CB59 D31AC550 471E81F0 0F6928E0 1DDA08E9 74A004F4 9E61F5D1 05284D20");
    private static final BigInteger A = hex("61D5E490 F6F1B795 47B0704C 436F523D D0E560F0 C64115BB 72557EC4"
            + "4352E890 3211C046 92272D8B 2D1A5358 A2CF1B6E 0BFCF99F 921530EC"
            + "8E393561 79EAE45E 42BA92AE ACED8251 71E1E8B9 AF6D9C03 E1327F44"
            + "BE087EF0 6530E69F 66615261 EEF54073 CA11CF58 58F0EDFD FE15EFEA"
            + "B349EF5D 76988A36 72FAC47B 0769447B");
    private static final BigInteger B = hex("BD0C6151 2C692C0C B6D041FA 01BB152D 4916A1E7 7AF46AE1 05393011"
            + "BAF38964 DC46A067 0DD125B9 5A981652 236F99D9 B681CBF8 7837EC99"
            + "6C6DA044 53728610 D0C6DDB5 8B318885 D7D82C7F 8DEB75CE 7BD4FBAA"
            + "37089E6F 9C6059F3 88838E7A 00030B33 1EB76840 910440B1 B27AAEAE"
            + "EB4012B7 D7665238 A8E3FB00 4B117B58");
    private static final BigInteger U = hex("CE38B959 3487DA98 554ED47D 70A7AE5F 462EF019");
    private static final BigInteger S = hex("B0DC82BA BCF30674 AE450C02 87745E79 90A3381F 63B387AA F271A10D"
            + "233861E3 59B48220 F7C4693C 9AE12B0A 6F67809F 0876E2D0 13800D6C"
            + "41BB59B6 D5979B5C 00A172B4 A2A5903A 0BDCAF8A 709585EB 2AFAFA8F"
            + "3499B200 210DCC1F 10EB3394 3CD67FC8 8A2F39A4 BE5BEC4E C0A3212D"
            + "C346D7E4 74B29EDE 8A469FFE CA686E5A");

    @Test
    void multiplierPrivateKeyAndVerifierAreTheRfcs() {
        assertThat(SRP6Util.calculateK(new SHA1Digest(), GROUP.getN(), GROUP.getG())).isEqualTo(K);
        assertThat(SRP6Util.calculateX(new SHA1Digest(), GROUP.getN(), SALT, I, P)).isEqualTo(X);
        SRP6VerifierGenerator generator = new SRP6VerifierGenerator();
        generator.init(GROUP, new SHA1Digest());
        assertThat(generator.generateVerifier(SALT, I, P)).isEqualTo(V);
        assertThat(SRP6Util.calculateU(new SHA1Digest(), GROUP.getN(), A, B)).isEqualTo(U);
    }

    @Test
    void serverPublicValueAndPremasterSecretAreTheRfcs() throws Exception {
        SRP6Server server = new SRP6Server() {
            @Override
            protected BigInteger selectPrivateValue() {
                return B_PRIVATE;
            }
        };
        server.init(GROUP, V, new SHA1Digest(), new SecureRandom());
        assertThat(server.generateServerCredentials()).isEqualTo(B);
        assertThat(server.calculateSecret(A)).isEqualTo(S);
    }

    @Test
    void clientPublicValueAndPremasterSecretAreTheRfcs() throws Exception {
        SRP6Client client = new SRP6Client() {
            @Override
            protected BigInteger selectPrivateValue() {
                return A_PRIVATE;
            }
        };
        client.init(GROUP, new SHA1Digest(), new SecureRandom());
        assertThat(client.generateClientCredentials(SALT, I, P)).isEqualTo(A);
        assertThat(client.calculateSecret(B)).isEqualTo(S);
    }

    @Test
    void theServersFormulasWithAPrecomputedGToTheBReachTheRfcsPublicValueAndSecret() {
        BigInteger n = GROUP.getN();
        BigInteger gb = GROUP.getG().modPow(B_PRIVATE, n);
        assertThat(PakeServer.serverPublic(n, K, V, gb)).isEqualTo(B);
        assertThat(PakeServer.premaster(n, V, U, A, B_PRIVATE)).isEqualTo(S);
    }

    @Test
    void theClientsFormulaWithACachedKTimesGToTheXReachesTheRfcsSecret() {
        BigInteger n = GROUP.getN();
        BigInteger kgx = K.multiply(GROUP.getG().modPow(X, n)).mod(n);
        assertThat(GROUP.getG().modPow(A_PRIVATE, n)).isEqualTo(A);
        assertThat(PakeClient.premaster(n, kgx, B, U, X, A_PRIVATE)).isEqualTo(S);
    }

    private static BigInteger hex(String spaced) {
        return new BigInteger(spaced.replace(" ", ""), 16);
    }
}
