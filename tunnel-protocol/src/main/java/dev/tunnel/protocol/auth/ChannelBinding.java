package dev.tunnel.protocol.auth;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.Locale;

/**
 * What a login is bound to: the SHA-256 hash of the server's DER certificate, as in RFC 5929
 * {@code tls-server-end-point} (which we fix to SHA-256 whatever the signature algorithm), or
 * nothing for a plaintext connection.
 *
 * <p>The client takes the certificate it actually saw in the TLS handshake; the server takes its
 * own configured (or generated) certificate, not the connection's, so a TLS terminator holding
 * the server's certificate in front of it gives the same binding and one holding any other
 * certificate does not. Immutable.
 */
public final class ChannelBinding {
    private static final String PREFIX = "sha256:";
    private static final HexFormat COLON_HEX = HexFormat.ofDelimiter(":").withUpperCase();
    private static final ChannelBinding NONE = new ChannelBinding(new byte[0]);

    private final byte[] hash;

    private ChannelBinding(byte[] hash) {
        this.hash = hash;
    }

    /** No TLS: the proof is bound to nothing beyond the nonces. */
    public static ChannelBinding none() {
        return NONE;
    }

    /** The binding of {@code certificate} (the leaf the server presents). */
    public static ChannelBinding of(X509Certificate certificate) {
        try {
            return new ChannelBinding(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException("cannot hash certificate " + certificate.getSubjectX500Principal(), e);
        }
    }

    /**
     * Parses a fingerprint as written in configs and logs: {@code sha256:AB:CD:...}, with or
     * without the prefix and the colons, any case; {@code ""} is {@link #none()}.
     *
     * @throws IllegalArgumentException naming what is wrong (never echoing anything secret: fingerprints are public)
     */
    public static ChannelBinding parse(String fingerprint) {
        if (fingerprint.isEmpty()) {
            return NONE;
        }
        String hex = fingerprint.trim();
        if (hex.toLowerCase(Locale.ROOT).startsWith(PREFIX)) {
            hex = hex.substring(PREFIX.length());
        }
        hex = hex.replace(":", "");
        if (hex.length() != 64 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("\"" + fingerprint
                    + "\" is not a SHA-256 fingerprint (expected: sha256: and 32 hex bytes, e.g. sha256:AB:CD:...)");
        }
        return new ChannelBinding(HexFormat.of().parseHex(hex.toLowerCase(Locale.ROOT)));
    }

    public boolean isNone() {
        return hash.length == 0;
    }

    /** {@code sha256:AB:CD:...} (upper-case, as {@code openssl x509 -fingerprint -sha256} prints it), or "" for none. */
    public String fingerprint() {
        return isNone() ? "" : PREFIX + COLON_HEX.formatHex(hash);
    }

    /** Constant-time equality. */
    public boolean matches(ChannelBinding other) {
        return MessageDigest.isEqual(hash, other.hash);
    }

    byte[] bytes() {
        return hash.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChannelBinding other && matches(other);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(hash);
    }

    @Override
    public String toString() {
        return isNone() ? "no TLS" : fingerprint();
    }
}
