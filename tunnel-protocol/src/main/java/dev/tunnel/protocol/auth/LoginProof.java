package dev.tunnel.protocol.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The challenge-response login of protocol version 1 (docs/security.md has the construction
 * and the reasoning). Both proofs are {@code hex(HMAC-SHA256(key = token, message))} with
 *
 * <pre>
 *   message = label || len(user) || user || len(sn) || sn || len(cn) || cn || len(cb) || cb
 * </pre>
 * where lengths are u32 big-endian, {@code user} is UTF-8, {@code sn}/{@code cn} are the server's
 * and the client's nonces as sent (hex text), {@code cb} is the {@link ChannelBinding} (32 bytes,
 * or none), and {@code label} is {@code "tunnel-login-v1 client"} or
 * {@code "tunnel-login-v1 server"} so one proof can never be reflected as the other.
 *
 * <p>The token never crosses the wire; every check is constant-time. Stateless and thread-safe.
 */
public final class LoginProof {
    /** Nonce length in bytes (hex on the wire: twice as many characters). */
    public static final int NONCE_BYTES = 32;

    private static final byte[] CLIENT_LABEL = "tunnel-login-v1 client".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SERVER_LABEL = "tunnel-login-v1 server".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private LoginProof() {
    }

    /** A fresh random nonce of {@value #NONCE_BYTES} bytes, hex-encoded. */
    public static String newNonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return HEX.formatHex(nonce);
    }

    /** Whether {@code nonce} has the shape of one made by {@link #newNonce()} (the peer's is checked before use). */
    public static boolean wellFormedNonce(String nonce) {
        return nonce.length() == 2 * NONCE_BYTES && nonce.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f');
    }

    public static String client(String token, String user, String serverNonce, String clientNonce, ChannelBinding binding) {
        return mac(CLIENT_LABEL, token, user, serverNonce, clientNonce, binding);
    }

    public static String server(String token, String user, String serverNonce, String clientNonce, ChannelBinding binding) {
        return mac(SERVER_LABEL, token, user, serverNonce, clientNonce, binding);
    }

    public static boolean verifyClient(String token, String user, String serverNonce, String clientNonce,
                                       ChannelBinding binding, String proof) {
        return constantTimeEquals(client(token, user, serverNonce, clientNonce, binding), proof);
    }

    public static boolean verifyServer(String token, String user, String serverNonce, String clientNonce,
                                       ChannelBinding binding, String proof) {
        return constantTimeEquals(server(token, user, serverNonce, clientNonce, binding), proof);
    }

    /** Constant-time comparison of two ASCII strings (the length may leak, the content does not). */
    public static boolean constantTimeEquals(String expected, String actual) {
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), actual.getBytes(StandardCharsets.UTF_8));
    }

    private static String mac(byte[] label, String token, String user, String serverNonce, String clientNonce,
                              ChannelBinding binding) {
        return TokenMac.compute(token, label, TokenMac.utf8(user), TokenMac.utf8(serverNonce),
                TokenMac.utf8(clientNonce), binding.bytes());
    }
}
