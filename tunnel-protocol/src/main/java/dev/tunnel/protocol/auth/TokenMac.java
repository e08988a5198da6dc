package dev.tunnel.protocol.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The HMAC-SHA256 both proofs use: keyed with the token, over a label and then each field as a
 * 4-byte big-endian length and its bytes, hex-encoded. Stateless and thread-safe.
 */
final class TokenMac {
    private static final HexFormat HEX = HexFormat.of();

    private TokenMac() {
    }

    static String compute(String token, byte[] label, byte[]... fields) {
        return HEX.formatHex(raw(token.getBytes(StandardCharsets.UTF_8), label, fields));
    }

    /** The MAC keyed with {@code key} (raw bytes), not hex-encoded. */
    static byte[] raw(byte[] key, byte[] label, byte[]... fields) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            // HMAC keys may not be empty; an empty token (no auth, as in frp) uses one zero byte.
            mac.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
            mac.update(label);
            for (byte[] field : fields) {
                mac.update(ByteBuffer.allocate(4).putInt(field.length).array());
                mac.update(field);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
