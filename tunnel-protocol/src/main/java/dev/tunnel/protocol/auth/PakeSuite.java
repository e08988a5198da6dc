package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.CryptoException;
import org.bouncycastle.crypto.agreement.srp.SRP6StandardGroups;
import org.bouncycastle.crypto.agreement.srp.SRP6Util;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.params.SRP6GroupParameters;
import org.bouncycastle.util.BigIntegers;

/**
 * The one SRP-6a suite the PAKE login uses: the RFC 5054 2048-bit group with SHA-256, an empty
 * SRP identity (the user is bound by the key-confirmation MACs instead, so one verifier serves the
 * shared token whatever user name a client sends) and the token's UTF-8 bytes as the password.
 * Public values travel as base64 of their big-endian bytes. The group, {@code k}, {@code x},
 * {@code u}, the range checks of public values and the verifier are BouncyCastle's
 * ({@code org.bouncycastle.crypto.agreement.srp}); {@link PakeClient} and {@link PakeServer} put
 * together the two formulas of RFC 5054 themselves ({@code B = k·v + g^b} and the two ways to
 * {@code S}), with {@link BigInteger#modPow} and private exponents shorter than
 * BouncyCastle's (docs/security.md, "Cost" under "PAKE login", says why that is safe and why
 * BouncyCastle's own classes could not be used for it). Stateless and thread-safe.
 */
final class PakeSuite {
    /** The verifier string's prefix: names the group and the hash, so another suite can come later. */
    static final String NAME = "srp6a-sha256-2048";
    static final SRP6GroupParameters GROUP = SRP6StandardGroups.rfc5054_2048;
    static final byte[] IDENTITY = new byte[0];
    static final SecureRandom RANDOM = new SecureRandom();
    /** Bytes of a public value or S, padded (PAD() in RFC 5054). */
    static final int LENGTH = (GROUP.getN().bitLength() + 7) / 8;
    /** {@code k = H(N | PAD(g))}. */
    static final BigInteger K = SRP6Util.calculateK(digest(), GROUP.getN(), GROUP.getG());
    /**
     * Bits of the server's private {@code b}: twice the group's ~112-bit strength rounded up to
     * 256 (RFC 5054 asks for at least 256), so a discrete logarithm known to be that short still
     * costs 2^128 (Pollard's kangaroo); the group's order is the large prime (N-1)/2 (a safe prime),
     * so a short exponent gives nothing else away.
     */
    static final int SERVER_EXPONENT_BITS = 256;
    /**
     * Bits of the client's private {@code a}: 128 more than {@code u·x} (256 + 256 bits), so the
     * exponent {@code a + u·x} of the client's {@code S} is uniform within 2^-128 whatever the token:
     * its length and bit pattern, which the time of {@code modPow} depends on, say nothing about x.
     */
    static final int CLIENT_EXPONENT_BITS = 640;

    private PakeSuite() {
    }

    /** A random private exponent of exactly {@code bits} bits. */
    static BigInteger privateExponent(int bits) {
        return new BigInteger(bits, RANDOM).setBit(bits - 1);
    }

    /** {@code g^e mod N}. */
    static BigInteger power(BigInteger e) {
        return GROUP.getG().modPow(e, GROUP.getN());
    }

    /** {@code u = H(PAD(A) | PAD(B))}. */
    static BigInteger scrambler(BigInteger clientPublic, BigInteger serverPublic) {
        return SRP6Util.calculateU(digest(), GROUP.getN(), clientPublic, serverPublic);
    }

    /**
     * {@code value}, checked by BouncyCastle to be non-zero mod N.
     *
     * @throws IllegalArgumentException naming {@code what}
     */
    static BigInteger validated(BigInteger value, String what) {
        try {
            return SRP6Util.validatePublicValue(GROUP.getN(), value);
        } catch (CryptoException e) {
            throw new IllegalArgumentException(what + " is invalid: " + e.getMessage());
        }
    }

    static Digest digest() {
        return new SHA256Digest();
    }

    static byte[] password(String token) {
        return token.getBytes(StandardCharsets.UTF_8);
    }

    static String encode(BigInteger value) {
        return Base64.getEncoder().encodeToString(BigIntegers.asUnsignedByteArray(LENGTH, value));
    }

    /**
     * A public value as sent: base64 of at most {@link #LENGTH} bytes. Its range is checked by
     * BouncyCastle when it is used.
     *
     * @throws IllegalArgumentException naming {@code what}
     */
    static BigInteger decode(String text, String what) {
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is not base64");
        }
        if (bytes.length == 0 || bytes.length > LENGTH) {
            throw new IllegalArgumentException(what + " has " + bytes.length + " bytes (expected: 1-" + LENGTH + ")");
        }
        return new BigInteger(1, bytes);
    }
}
