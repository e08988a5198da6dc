package dev.tunnel.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * HTTP basic auth against the configured user and password, compared in constant time: both
 * sides are hashed to SHA-256 first (equal lengths, whatever was sent) and compared with
 * {@link MessageDigest#isEqual}, and the user and password are always both compared, so the
 * time taken says nothing about which part or how much of it was right.
 */
final class BasicAuth {
    private final byte[] user;
    private final byte[] password;

    BasicAuth(String user, String password) {
        this.user = sha256(user == null ? "" : user);
        this.password = sha256(password == null ? "" : password);
    }

    /** Whether an {@code Authorization} header value carries the right credentials. */
    boolean accepts(String authorization) {
        String given = "";
        if (authorization != null && authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            try {
                given = new String(Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                given = "";
            }
        }
        int colon = given.indexOf(':');
        String givenUser = colon < 0 ? "" : given.substring(0, colon);
        String givenPassword = colon < 0 ? "" : given.substring(colon + 1);
        boolean userOk = MessageDigest.isEqual(user, sha256(givenUser));
        boolean passwordOk = MessageDigest.isEqual(password, sha256(givenPassword));
        return colon >= 0 & userOk & passwordOk;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
