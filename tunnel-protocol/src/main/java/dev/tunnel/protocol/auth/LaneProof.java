package dev.tunnel.protocol.auth;

import java.nio.charset.StandardCharsets;

/**
 * The proof on a session's second connection, its bulk lane (mux mode, capability
 * {@code mux.expressLane}), answering the server's challenge on that connection (docs/security.md):
 *
 * <pre>
 *   hex(HMAC-SHA256(key = token, "tunnel-lane-v1 client" || len(user) || user || len(sessionId) || sessionId
 *                                || len(sn) || sn || len(cn) || cn || len(cb) || cb))
 * </pre>
 * encoded as {@link WorkConnProof} is, where {@code sn} is the server nonce of the lane's own
 * CHALLENGE (used once), {@code cn} a fresh client nonce and {@code cb} the {@link ChannelBinding}
 * of the certificate the lane saw, which must be the login's. A recorded {@code JOIN_LANE} cannot
 * be replayed (every connection gets a new {@code sn}); the label keeps it apart from login and
 * work-connection proofs. The token never crosses the wire; comparison is constant-time.
 * Stateless and thread-safe.
 */
public final class LaneProof {
    private static final byte[] LABEL = "tunnel-lane-v1 client".getBytes(StandardCharsets.US_ASCII);

    private LaneProof() {
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
