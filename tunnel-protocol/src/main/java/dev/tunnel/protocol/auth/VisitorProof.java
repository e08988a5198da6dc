package dev.tunnel.protocol.auth;

import java.nio.charset.StandardCharsets;

/**
 * The proof a visitor sends for each connection (or UDP association) to an stcp or sudp proxy
 * (docs/security.md):
 *
 * <pre>
 *   hex(HMAC-SHA256(key = secretKey, "tunnel-visitor-v1" || len(type) || type || len(visitorUser) || visitorUser
 *                   || len(serverUser) || serverUser || len(serverName) || serverName
 *                   || len(sn) || sn || len(streamId) || streamId || len(cn) || cn))
 * </pre>
 * with the encoding of {@link LoginProof} (u32 big-endian lengths, UTF-8), where {@code sn} is
 * the server nonce of the visitor session's login challenge, {@code streamId} the decimal id of
 * the stream the visitor opened and {@code cn} a fresh client nonce. The secret key never crosses
 * the wire. A recorded proof cannot be replayed: another session has another {@code sn}, and
 * within a session stream ids only rise. The label keeps it from being usable as a login or work
 * connection proof. Comparison is constant-time. Stateless and thread-safe.
 */
public final class VisitorProof {
    private static final byte[] LABEL = "tunnel-visitor-v1".getBytes(StandardCharsets.US_ASCII);

    private VisitorProof() {
    }

    public static String compute(String secretKey, String type, String visitorUser, String serverUser,
                                 String serverName, String sessionNonce, int streamId, String clientNonce) {
        return TokenMac.compute(secretKey, LABEL, TokenMac.utf8(type), TokenMac.utf8(visitorUser),
                TokenMac.utf8(serverUser), TokenMac.utf8(serverName), TokenMac.utf8(sessionNonce),
                TokenMac.utf8(Integer.toUnsignedString(streamId)), TokenMac.utf8(clientNonce));
    }

    public static boolean verify(String secretKey, String type, String visitorUser, String serverUser,
                                 String serverName, String sessionNonce, int streamId, String clientNonce,
                                 String proof) {
        return LoginProof.constantTimeEquals(
                compute(secretKey, type, visitorUser, serverUser, serverName, sessionNonce, streamId, clientNonce),
                proof);
    }
}
