package dev.tunnel.client.plugin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The {@code socks5} plugin's user and password (RFC 1929), checked in constant time: each side is
 * hashed first and both parts are always compared, so the time taken says nothing about which part
 * or how much of it was right. Immutable, thread-safe.
 */
final class SocksCredentials {
    private final byte[] user;
    private final byte[] password;

    private SocksCredentials(String user, String password) {
        this.user = sha256(user);
        this.password = sha256(password);
    }

    /** The expected credentials, or null when both are empty (no authentication, as in frp). */
    static SocksCredentials of(String user, String password) {
        String u = user == null ? "" : user;
        String p = password == null ? "" : password;
        return u.isEmpty() && p.isEmpty() ? null : new SocksCredentials(u, p);
    }

    boolean accepts(String givenUser, String givenPassword) {
        boolean userOk = MessageDigest.isEqual(user, sha256(givenUser == null ? "" : givenUser));
        boolean passwordOk = MessageDigest.isEqual(password, sha256(givenPassword == null ? "" : givenPassword));
        return userOk & passwordOk;
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }
}
