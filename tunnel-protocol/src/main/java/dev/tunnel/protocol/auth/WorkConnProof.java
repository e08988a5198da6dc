package dev.tunnel.protocol.auth;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The proof on a new work connection (pool mode), answering the server's challenge on that
 * work connection (docs/security.md):
 *
 * <pre>
 *   hex(HMAC-SHA256(key = token, "tunnel-work-v1 client" || len(user) || user || len(sessionId) || sessionId
 *                                || len(sn) || sn || len(cn) || cn || len(cb) || cb))
 * </pre>
 * with the same encoding as {@link LoginProof} (u32 big-endian lengths, UTF-8), where
 * {@code token} is the session's account token, {@code sn} the server nonce of the work
 * connection's own CHALLENGE, {@code cn} a fresh client nonce and {@code cb} the
 * {@link ChannelBinding} of the certificate the work connection saw. A recorded
 * {@code NEW_WORK_CONN} cannot be replayed (every connection gets a new {@code sn}); the label
 * keeps it from being usable as a login proof and the other way round. The token never crosses
 * the wire; comparison is constant-time. Stateless and thread-safe.
 */
public final class WorkConnProof {
    private static final byte[] LABEL = "tunnel-work-v1 client".getBytes(StandardCharsets.US_ASCII);
    private static final HexFormat HEX = HexFormat.of();

    private WorkConnProof() {
    }

    public static String compute(String token, String user, String sessionId, String serverNonce, String clientNonce,
                                 ChannelBinding binding) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            byte[] key = token.getBytes(StandardCharsets.UTF_8);
            mac.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, "HmacSHA256"));
            mac.update(LABEL);
            field(mac, user.getBytes(StandardCharsets.UTF_8));
            field(mac, sessionId.getBytes(StandardCharsets.UTF_8));
            field(mac, serverNonce.getBytes(StandardCharsets.UTF_8));
            field(mac, clientNonce.getBytes(StandardCharsets.UTF_8));
            field(mac, binding.bytes());
            return HEX.formatHex(mac.doFinal());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    public static boolean verify(String token, String user, String sessionId, String serverNonce, String clientNonce,
                                 ChannelBinding binding, String proof) {
        return LoginProof.constantTimeEquals(compute(token, user, sessionId, serverNonce, clientNonce, binding), proof);
    }

    private static void field(Mac mac, byte[] value) {
        mac.update(ByteBuffer.allocate(4).putInt(value.length).array());
        mac.update(value);
    }
}
