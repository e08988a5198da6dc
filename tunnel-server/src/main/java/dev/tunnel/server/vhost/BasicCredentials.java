package dev.tunnel.server.vhost;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * HTTP Basic credentials ({@code Authorization: Basic base64(user:password)}): parsing, and the
 * check of a proxy's {@code httpUser}/{@code httpPassword} in constant time (the comparison
 * takes as long whatever the first wrong byte, so timing says nothing about the secret).
 */
public record BasicCredentials(String user, String password) {

    /** The credentials in an Authorization header value, or null if it holds no valid Basic ones. */
    public static BasicCredentials parse(String authorization) {
        if (authorization == null || authorization.length() < 6
                || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(authorization.substring(6).strip());
        } catch (IllegalArgumentException e) {
            return null;
        }
        String text = new String(decoded, StandardCharsets.UTF_8);
        int colon = text.indexOf(':');
        return colon < 0 ? null : new BasicCredentials(text.substring(0, colon), text.substring(colon + 1));
    }

    /** The user name in an Authorization header, "" when there is none (routeByHTTPUser). */
    public static String userOf(String authorization) {
        BasicCredentials c = parse(authorization);
        return c == null ? "" : c.user;
    }

    /** Whether these credentials are {@code user}/{@code password}, compared in constant time. */
    public boolean matches(String user, String password) {
        // both parts always compared, so a wrong user costs as long as a wrong password
        boolean u = MessageDigest.isEqual(digest(this.user), digest(user));
        boolean p = MessageDigest.isEqual(digest(this.password), digest(password));
        return u & p;
    }

    /** Fixed-length digests, so the comparison time does not depend on the lengths either. */
    private static byte[] digest(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "BasicCredentials[" + user + ", ***]";
    }
}
