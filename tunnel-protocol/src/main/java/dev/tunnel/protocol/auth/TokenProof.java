package dev.tunnel.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The login proof: {@code HMAC-SHA256(key = token, "tunnel-login-v1" | timestamp | nonce)},
 * hex-encoded. The token itself never crosses the wire; comparison is constant-time.
 *
 * <p>This proves knowledge of the token but, on its own, does not stop a recorded login from
 * being replayed; binding the proof to a server challenge and the TLS certificate is the
 * security model's work (docs/security.md).
 */
public final class TokenProof {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private TokenProof() {
    }

    /** A fresh random 16-byte nonce, hex-encoded. */
    public static String newNonce() {
        byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce);
        return HEX.formatHex(nonce);
    }

    public static String compute(String token, long timestampMillis, String nonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            byte[] key = token.getBytes(StandardCharsets.UTF_8);
            // HMAC keys may not be empty; an empty token (no auth, as in frp) uses one zero byte.
            mac.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
            mac.update("tunnel-login-v1|".getBytes(StandardCharsets.UTF_8));
            mac.update(Long.toString(timestampMillis).getBytes(StandardCharsets.UTF_8));
            mac.update((byte) '|');
            mac.update(nonce.getBytes(StandardCharsets.UTF_8));
            return HEX.formatHex(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** Constant-time check of a proof received at login. */
    public static boolean verify(String token, long timestampMillis, String nonce, String proof) {
        byte[] expected = compute(token, timestampMillis, nonce).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, proof.getBytes(StandardCharsets.US_ASCII));
    }
}
