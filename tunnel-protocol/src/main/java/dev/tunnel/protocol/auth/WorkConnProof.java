package dev.tunnel.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The proof on a new work connection (pool mode):
 * {@code HMAC-SHA256(key = token, "tunnel-work-v1|" + sessionId + "|" + timestamp + "|" + nonce)},
 * hex-encoded. It proves the connection comes from a holder of the token for that session
 * without sending the token. Its own prefix keeps it from being usable as a login proof
 * ({@link TokenProof}) and the other way round. Comparison is constant-time.
 */
public final class WorkConnProof {
    private static final HexFormat HEX = HexFormat.of();

    private WorkConnProof() {
    }

    public static String compute(String token, String sessionId, long timestampMillis, String nonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            byte[] key = token.getBytes(StandardCharsets.UTF_8);
            mac.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
            mac.update(("tunnel-work-v1|" + sessionId + "|" + timestampMillis + "|" + nonce)
                    .getBytes(StandardCharsets.UTF_8));
            return HEX.formatHex(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    public static boolean verify(String token, String sessionId, long timestampMillis, String nonce, String proof) {
        byte[] expected = compute(token, sessionId, timestampMillis, nonce).getBytes(StandardCharsets.US_ASCII);
        return MessageDigest.isEqual(expected, proof.getBytes(StandardCharsets.US_ASCII));
    }
}
