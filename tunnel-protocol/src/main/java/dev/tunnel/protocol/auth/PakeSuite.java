package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.agreement.srp.SRP6StandardGroups;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.params.SRP6GroupParameters;
import org.bouncycastle.util.BigIntegers;

/**
 * The one SRP-6a suite the PAKE login uses: the RFC 5054 2048-bit group with SHA-256, an empty
 * SRP identity (the user is bound by the key-confirmation MACs instead, so one verifier serves the
 * shared token whatever user name a client sends) and the token's UTF-8 bytes as the password.
 * Public values travel as base64 of their big-endian bytes. Every group operation is
 * BouncyCastle's ({@code org.bouncycastle.crypto.agreement.srp}). Stateless and thread-safe.
 */
final class PakeSuite {
    /** The verifier string's prefix: names the group and the hash, so another suite can come later. */
    static final String NAME = "srp6a-sha256-2048";
    static final SRP6GroupParameters GROUP = SRP6StandardGroups.rfc5054_2048;
    static final byte[] IDENTITY = new byte[0];
    static final SecureRandom RANDOM = new SecureRandom();
    /** Bytes of a public value or S, padded (PAD() in RFC 5054). */
    static final int LENGTH = (GROUP.getN().bitLength() + 7) / 8;

    private PakeSuite() {
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
