package dev.tunnel.tls;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;

/**
 * A certificate with its private key.
 *
 * @param privateKey  the key the certificate's public key belongs to
 * @param certificate the certificate
 */
public record CertifiedKey(PrivateKey privateKey, X509Certificate certificate) {

    /** SHA-256 of the DER certificate as colon-separated upper-case hex, as {@code openssl x509 -fingerprint -sha256} prints it. */
    public String sha256Fingerprint() {
        return sha256Fingerprint(certificate);
    }

    /** SHA-256 of the DER certificate as colon-separated upper-case hex. */
    public static String sha256Fingerprint(X509Certificate certificate) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException("cannot fingerprint certificate " + certificate.getSubjectX500Principal(), e);
        }
    }
}
