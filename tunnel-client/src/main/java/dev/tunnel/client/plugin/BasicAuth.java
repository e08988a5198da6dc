package dev.tunnel.client.plugin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Checks HTTP Basic credentials in constant time: both sides are hashed first, so neither the
 * content nor the length of the expected credentials leaks through timing. Immutable, thread-safe.
 */
final class BasicAuth {

    /** The {@code WWW-Authenticate} challenge sent with 401. */
    static final String CHALLENGE = "Basic realm=\"tunnel\"";

    private final byte[] expectedDigest;

    private BasicAuth(byte[] expectedDigest) {
        this.expectedDigest = expectedDigest;
    }

    /** A checker for {@code user:password}, or {@code null} when both are empty (no auth, as in frp). */
    static BasicAuth of(String user, String password) {
        String u = user == null ? "" : user;
        String p = password == null ? "" : password;
        if (u.isEmpty() && p.isEmpty()) {
            return null;
        }
        return new BasicAuth(sha256((u + ":" + p).getBytes(StandardCharsets.UTF_8)));
    }

    /** Whether the {@code Authorization} header value carries the expected credentials. */
    boolean accepts(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return false;
        }
        byte[] given;
        try {
            given = Base64.getDecoder().decode(authorization.substring(6).trim());
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(sha256(given), expectedDigest);
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }
}
