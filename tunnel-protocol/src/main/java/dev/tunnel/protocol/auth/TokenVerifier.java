package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.math.ec.ECPoint;

/**
 * What a server may hold instead of a token ({@code auth.tokenVerifier}): a salt, {@code w0} and
 * {@code L = w1·P} of RFC 9383's SPAKE2+ ({@code w0}, {@code w1} from the token by PBKDF2 with the
 * salt, {@link PakeSuite#secrets}), written
 * {@code spake2plus-p256-sha256:<salt base64>:<w0 base64>:<L base64>}. It lets the server run the
 * PAKE login but not log in itself: a client must prove {@code w1}, which the verifier holds only
 * as {@code L}. It is not a secret in the sense a token is, yet whoever holds it can test token
 * guesses offline (one PBKDF2 each, as against any password hash), so it is never logged and
 * {@link #toString()} leaves it out. Also holds {@code w0·M}, {@code w0·N} and a comb table of
 * {@code L} ({@link PakeSuite#precomputeFixed}), computed once, so a login costs the server no
 * multiplication for the first two and a fixed-base one for {@code V = y·L}; the decoys made of a
 * verifier ({@link #decoy}) share all three, so a hello for a user with no account costs the
 * server what any other costs. Immutable.
 */
public final class TokenVerifier {
    /** Salt length in bytes for {@link #create}. */
    public static final int SALT_BYTES = 32;

    private final byte[] salt;
    private final BigInteger w0;
    private final ECPoint l;
    private final ECPoint w0m;
    private final ECPoint w0n;

    private TokenVerifier(byte[] salt, BigInteger w0, ECPoint l) {
        this(salt, w0, PakeSuite.precomputeFixed(l), PakeSuite.M.multiply(w0).normalize(),
                PakeSuite.N.multiply(w0).normalize());
    }

    private TokenVerifier(byte[] salt, BigInteger w0, ECPoint l, ECPoint w0m, ECPoint w0n) {
        this.salt = salt;
        this.w0 = w0;
        this.l = l;
        this.w0m = w0m;
        this.w0n = w0n;
    }

    /** A verifier of {@code token} with a fresh random salt (one PBKDF2, a few ms). */
    public static TokenVerifier create(String token) {
        byte[] salt = new byte[SALT_BYTES];
        PakeSuite.RANDOM.nextBytes(salt);
        return derive(token, salt);
    }

    /** The verifier of {@code token} with {@code salt}. */
    public static TokenVerifier derive(String token, byte[] salt) {
        BigInteger[] w = PakeSuite.secrets(token, salt);
        return new TokenVerifier(salt.clone(), w[0], PakeSuite.base(w[1]));
    }

    /** A verifier that no token matches (random {@code w0} and {@code w1}), for decoy answers. */
    public static TokenVerifier unmatchable() {
        byte[] salt = new byte[SALT_BYTES];
        PakeSuite.RANDOM.nextBytes(salt);
        return new TokenVerifier(salt, PakeSuite.randomScalar(), PakeSuite.base(PakeSuite.randomScalar()));
    }

    /**
     * Reads the string {@link #format()} writes.
     *
     * @throws IllegalArgumentException saying what is wrong, without echoing the value
     */
    public static TokenVerifier parse(String text) {
        String[] parts = text.trim().split(":", -1);
        String expected = " (expected: " + PakeSuite.NAME + ":<salt base64>:<w0 base64>:<L base64>, as printed by"
                + " 'java -jar tunnel-server.jar verifier --token-file FILE')";
        if (parts.length != 4 || !parts[0].equals(PakeSuite.NAME)) {
            throw new IllegalArgumentException("not a token verifier" + expected);
        }
        byte[] salt;
        byte[] w0;
        ECPoint l;
        try {
            salt = base64(parts[1], "the salt");
            w0 = base64(parts[2], "w0");
            l = PakeSuite.decode(parts[3], "L");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed token verifier: " + e.getMessage() + expected);
        }
        if (salt.length < 16 || salt.length > 64) {
            throw new IllegalArgumentException("malformed token verifier: a salt of " + salt.length
                    + " bytes (expected: 16-64)" + expected);
        }
        BigInteger w0Value = new BigInteger(1, w0);
        if (w0.length != 32 || w0Value.compareTo(PakeSuite.ORDER) >= 0) {
            throw new IllegalArgumentException("malformed token verifier: w0 is out of range" + expected);
        }
        return new TokenVerifier(salt, w0Value, l);
    }

    private static byte[] base64(String text, String what) {
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is not base64");
        }
    }

    /**
     * This verifier under another salt: it then matches no token. The server answers a PAKE hello
     * for a user it does not have with one, so that the answer looks like any other.
     */
    public TokenVerifier decoy(byte[] otherSalt) {
        return new TokenVerifier(otherSalt.clone(), w0, l, w0m, w0n);
    }

    /** {@code spake2plus-p256-sha256:<salt base64>:<w0 base64>:<L base64>}. */
    public String format() {
        Base64.Encoder b64 = Base64.getEncoder();
        return PakeSuite.NAME + ":" + b64.encodeToString(salt) + ":" + b64.encodeToString(PakeSuite.scalarBytes(w0))
                + ":" + PakeSuite.encode(l);
    }

    /** The salt, base64, as the PAKE challenge carries it. */
    String saltText() {
        return Base64.getEncoder().encodeToString(salt);
    }

    BigInteger w0() {
        return w0;
    }

    ECPoint l() {
        return l;
    }

    /** {@code k·L} with the comb table computed with this verifier. */
    ECPoint timesL(BigInteger k) {
        return PakeSuite.fixed(l, k);
    }

    ECPoint w0m() {
        return w0m;
    }

    ECPoint w0n() {
        return w0n;
    }

    /** Whether {@code token} is the token this verifier was made from (a test; the login never needs it). */
    public boolean matches(String token) {
        return derive(token, salt).equals(this);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenVerifier other && Arrays.equals(salt, other.salt) && w0.equals(other.w0)
                && l.equals(other.l);
    }

    @Override
    public int hashCode() {
        return w0.hashCode();
    }

    @Override
    public String toString() {
        return "TokenVerifier[" + PakeSuite.NAME + "]"; // never the values
    }
}
