package dev.tunnel.protocol.auth;

import java.nio.charset.StandardCharsets;

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

    private WorkConnProof() {
    }

    public static String compute(String token, String user, String sessionId, String serverNonce, String clientNonce,
                                 ChannelBinding binding) {
        return TokenMac.compute(token, LABEL, TokenMac.utf8(user), TokenMac.utf8(sessionId),
                TokenMac.utf8(serverNonce), TokenMac.utf8(clientNonce), binding.bytes());
    }

    public static boolean verify(String token, String user, String sessionId, String serverNonce, String clientNonce,
                                 ChannelBinding binding, String proof) {
        return LoginProof.constantTimeEquals(compute(token, user, sessionId, serverNonce, clientNonce, binding), proof);
    }
}
