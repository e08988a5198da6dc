package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.Base64;
import org.bouncycastle.crypto.agreement.srp.SRP6VerifierGenerator;

/**
 * What a server may hold instead of a token ({@code auth.tokenVerifier}): an SRP-6a salt and
 * verifier ({@code v = g^x}, {@code x = H(salt | H(":" | token))}, {@link PakeSuite}), written
 * {@code srp6a-sha256-2048:<salt base64>:<verifier base64>}. It lets the server run the PAKE login
 * but not log in itself: a client must know the token. It is not a secret in the sense a token is,
 * yet whoever holds it can test token guesses offline (as against any password hash), so it is
 * never logged and {@link #toString()} leaves it out. Immutable.
 */
public final class TokenVerifier {
    /** Salt length in bytes for {@link #create}. */
    public static final int SALT_BYTES = 32;

    private final byte[] salt;
    private final BigInteger verifier;

    private TokenVerifier(byte[] salt, BigInteger verifier) {
        this.salt = salt;
        this.verifier = verifier;
    }

    /** A verifier of {@code token} with a fresh random salt: one modular exponentiation, a few ms. */
    public static TokenVerifier create(String token) {
        byte[] salt = new byte[SALT_BYTES];
        PakeSuite.RANDOM.nextBytes(salt);
        return derive(token, salt);
    }

    /** The verifier of {@code token} with {@code salt}. */
    public static TokenVerifier derive(String token, byte[] salt) {
        SRP6VerifierGenerator generator = new SRP6VerifierGenerator();
        generator.init(PakeSuite.GROUP, PakeSuite.digest());
        return new TokenVerifier(salt.clone(),
                generator.generateVerifier(salt, PakeSuite.IDENTITY, PakeSuite.password(token)));
    }

    /**
     * Reads the string {@link #format()} writes.
     *
     * @throws IllegalArgumentException saying what is wrong, without echoing the value
     */
    public static TokenVerifier parse(String text) {
        String[] parts = text.trim().split(":", -1);
        String expected = " (expected: " + PakeSuite.NAME + ":<salt base64>:<verifier base64>, as printed by"
                + " 'java -jar tunnel-server.jar verifier --token-file FILE')";
        if (parts.length != 3 || !parts[0].equals(PakeSuite.NAME)) {
            throw new IllegalArgumentException("not a token verifier" + expected);
        }
        byte[] salt;
        BigInteger verifier;
        try {
            salt = Base64.getDecoder().decode(parts[1]);
            verifier = PakeSuite.decode(parts[2], "the verifier");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed token verifier: " + e.getMessage() + expected);
        }
        if (salt.length < 16 || salt.length > 64) {
            throw new IllegalArgumentException("malformed token verifier: a salt of " + salt.length
                    + " bytes (expected: 16-64)" + expected);
        }
        BigInteger n = PakeSuite.GROUP.getN();
        if (verifier.signum() <= 0 || verifier.compareTo(n) >= 0) {
            throw new IllegalArgumentException("malformed token verifier: the verifier is out of range" + expected);
        }
        return new TokenVerifier(salt, verifier);
    }

    /**
     * This verifier under another salt: it then matches no token. The server answers a PAKE hello
     * for a user it does not have with one, so that the answer looks like any other.
     */
    public TokenVerifier decoy(byte[] otherSalt) {
        return new TokenVerifier(otherSalt.clone(), verifier);
    }

    /** {@code srp6a-sha256-2048:<salt base64>:<verifier base64>}. */
    public String format() {
        Base64.Encoder b64 = Base64.getEncoder();
        return PakeSuite.NAME + ":" + b64.encodeToString(salt) + ":" + PakeSuite.encode(verifier);
    }

    byte[] salt() {
        return salt.clone();
    }

    BigInteger verifier() {
        return verifier;
    }

    /** Whether {@code token} is the token this verifier was made from (a test; the login never needs it). */
    public boolean matches(String token) {
        return derive(token, salt).verifier.equals(verifier);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenVerifier other && Arrays.equals(salt, other.salt) && verifier.equals(other.verifier);
    }

    @Override
    public int hashCode() {
        return verifier.hashCode();
    }

    @Override
    public String toString() {
        return "TokenVerifier[" + PakeSuite.NAME + "]"; // never the values
    }
}
