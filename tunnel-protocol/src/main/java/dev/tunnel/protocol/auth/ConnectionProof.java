package dev.tunnel.protocol.auth;

import java.nio.charset.StandardCharsets;

/**
 * The proof on a logged-in session's further connections, answering the server's challenge on
 * that very connection (docs/security.md):
 *
 * <pre>
 *   hex(HMAC-SHA256(key = token, label || len(user) || user || len(sessionId) || sessionId
 *                                || len(sn) || sn || len(cn) || cn || len(cb) || cb))
 * </pre>
 * with the same encoding as {@link LoginProof} (u32 big-endian lengths, UTF-8), where
 * {@code token} is the session's account token, {@code user} the user the client logged in as,
 * {@code sn} the server nonce of the connection's own CHALLENGE (used once), {@code cn} a fresh
 * client nonce and {@code cb} the {@link ChannelBinding} of the certificate the connection saw.
 * A recorded proof cannot be replayed (every connection gets a new {@code sn}); each kind's label
 * keeps it from being usable as a login proof, as the other kind, and the other way round. The
 * token never crosses the wire; comparison is constant-time. Stateless and thread-safe.
 */
public enum ConnectionProof {
    /** {@code NEW_WORK_CONN}: a work connection in pool mode. */
    WORK_CONN("tunnel-work-v1 client");

    private final byte[] label;

    ConnectionProof(String label) {
        this.label = label.getBytes(StandardCharsets.US_ASCII);
    }

    public String compute(String token, String user, String sessionId, String serverNonce, String clientNonce,
                          ChannelBinding binding) {
        return TokenMac.compute(token, label, TokenMac.utf8(user), TokenMac.utf8(sessionId),
                TokenMac.utf8(serverNonce), TokenMac.utf8(clientNonce), binding.bytes());
    }

    public boolean verify(String token, String user, String sessionId, String serverNonce, String clientNonce,
                          ChannelBinding binding, String proof) {
        return LoginProof.constantTimeEquals(compute(token, user, sessionId, serverNonce, clientNonce, binding), proof);
    }
}
