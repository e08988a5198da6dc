package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.generators.PKCS5S2ParametersGenerator;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.math.ec.ECCurve;
import org.bouncycastle.math.ec.ECPoint;
import org.bouncycastle.math.ec.FixedPointCombMultiplier;
import org.bouncycastle.math.ec.FixedPointUtil;
import org.bouncycastle.util.BigIntegers;

/**
 * The one SPAKE2+ suite the PAKE login uses (RFC 9383, {@code P256-SHA256-HKDF-SHA256-HMAC-SHA256}):
 * the group P-256 with RFC 9383's points {@code M} and {@code N}, and {@code w0}, {@code w1}
 * derived from the token by PBKDF2-HMAC-SHA256 with the account's salt ({@link #secrets}). The
 * point arithmetic is BouncyCastle's ({@code CustomNamedCurves} secp256r1, whose decoding checks
 * that a point lies on the curve); {@link PakeClient} and {@link PakeServer} only put RFC 9383's
 * formulas together. Points travel as base64 of their uncompressed SEC1 encoding, scalars as
 * base64 of 32 big-endian bytes. Stateless and thread-safe.
 */
final class PakeSuite {
    /** The verifier string's prefix: names the group, the hash and the KDF, so another suite can come later. */
    static final String NAME = "spake2plus-p256-sha256";
    static final X9ECParameters CURVE = CustomNamedCurves.getByName("secp256r1");
    static final ECPoint G = CURVE.getG();
    /** The group's order (the cofactor is 1). */
    static final BigInteger ORDER = CURVE.getN();
    /** RFC 9383, section 4: M and N for P-256 (compressed SEC1). */
    static final ECPoint M = point("02886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f");
    static final ECPoint N = point("03d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49");
    static final SecureRandom RANDOM = new SecureRandom();
    /**
     * PBKDF2 iterations for {@code w0s || w1s}: a guess against a stolen verifier costs this
     * many HMAC-SHA256 (a few ms); the client pays it once per account and process
     * ({@link ProverSecrets}), the server once per account at start.
     */
    static final int KDF_ITERATIONS = 10_000;
    /** Bytes of each of w0s and w1s: 32 + 8, so their reduction mod the order is uniform within 2^-64 (RFC 9383, 3.2). */
    private static final int STRETCHED_BYTES = 40;
    private static final FixedPointCombMultiplier BASE = new FixedPointCombMultiplier();

    private PakeSuite() {
    }

    /** {@code w0} and {@code w1} of {@code token} under {@code salt}: RFC 9383's PBKDF over an empty prover and verifier identity. */
    static BigInteger[] secrets(String token, byte[] salt) {
        byte[] password = token.getBytes(StandardCharsets.UTF_8);
        byte[] input = TranscriptWriter.fields(password, new byte[0], new byte[0]);
        PKCS5S2ParametersGenerator kdf = new PKCS5S2ParametersGenerator(new SHA256Digest());
        kdf.init(input, salt, KDF_ITERATIONS);
        byte[] out = ((KeyParameter) kdf.generateDerivedParameters(2 * STRETCHED_BYTES * 8)).getKey();
        BigInteger w0 = new BigInteger(1, java.util.Arrays.copyOfRange(out, 0, STRETCHED_BYTES)).mod(ORDER);
        BigInteger w1 = new BigInteger(1, java.util.Arrays.copyOfRange(out, STRETCHED_BYTES, out.length)).mod(ORDER);
        return new BigInteger[] {w0, w1};
    }

    /** A uniformly random scalar in [1, order - 1]. */
    static BigInteger randomScalar() {
        return BigIntegers.createRandomInRange(BigInteger.ONE, ORDER.subtract(BigInteger.ONE), RANDOM);
    }

    /** {@code k·G}, normalized. */
    static ECPoint base(BigInteger k) {
        return fixed(G, k);
    }

    /**
     * {@code p} with a comb table of its multiples attached (BouncyCastle's
     * {@code FixedPointUtil.precompute}: about two multiplications' work, and 64 points held with
     * it), so that {@link #fixed} multiplies it in about half the time of a plain multiplication.
     * For points that recur: a verifier's {@code L}.
     */
    static ECPoint precomputeFixed(ECPoint p) {
        FixedPointUtil.precompute(p);
        return p;
    }

    /** {@code k·p} with the comb table of {@code p} (computed here, once, if it has none), normalized. */
    static ECPoint fixed(ECPoint p, BigInteger k) {
        return BASE.multiply(p, k).normalize();
    }

    static ECCurve curve() {
        return CURVE.getCurve();
    }

    static byte[] encodePoint(ECPoint p) {
        return p.getEncoded(false);
    }

    static String encode(ECPoint p) {
        return Base64.getEncoder().encodeToString(encodePoint(p));
    }

    static byte[] scalarBytes(BigInteger k) {
        return BigIntegers.asUnsignedByteArray(32, k);
    }

    /**
     * A point as sent: base64 of its uncompressed encoding, on the curve (BouncyCastle checks) and
     * not the identity.
     *
     * @throws IllegalArgumentException naming {@code what}
     */
    static ECPoint decode(String text, String what) {
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is not base64");
        }
        if (bytes.length != 65 || bytes[0] != 4) {
            throw new IllegalArgumentException(what + " is not an uncompressed P-256 point (" + bytes.length + " bytes)");
        }
        ECPoint p;
        try {
            p = curve().decodePoint(bytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is not on P-256");
        }
        return nonIdentity(p, what);
    }

    /** {@code p}, normalized, unless it is the identity. */
    static ECPoint nonIdentity(ECPoint p, String what) {
        ECPoint n = p.normalize();
        if (n.isInfinity()) {
            throw new IllegalArgumentException(what + " is the identity");
        }
        return n;
    }

    private static ECPoint point(String hex) {
        return CURVE.getCurve().decodePoint(HexFormat.of().parseHex(hex)).normalize();
    }
}
