package dev.tunnel.tls;

import java.nio.file.Path;

/**
 * The PEM files that configure one side of the tunnel's TLS; any of them may be {@code null}.
 *
 * @param certFile      certificate chain presented to the peer (leaf first); needs {@code keyFile}
 * @param keyFile       private key of the leaf certificate, PKCS#8 or PKCS#1; needs {@code certFile}
 * @param trustedCaFile CA certificates the peer's certificate must chain to; on the server this
 *                      makes client certificates mandatory (mutual TLS)
 */
public record TlsFiles(Path certFile, Path keyFile, Path trustedCaFile) {

    /** Config key of {@link #certFile()}, used in error messages. */
    public static final String CERT_FILE_KEY = "transport.tls.certFile";
    /** Config key of {@link #keyFile()}, used in error messages. */
    public static final String KEY_FILE_KEY = "transport.tls.keyFile";
    /** Config key of {@link #trustedCaFile()}, used in error messages. */
    public static final String TRUSTED_CA_FILE_KEY = "transport.tls.trustedCaFile";

    /** No files: a self-signed server certificate, a client that neither presents nor verifies one. */
    public static final TlsFiles NONE = new TlsFiles(null, null, null);

    /** Whether this names a certificate and key to present to the peer. */
    public boolean hasKeyPair() {
        return certFile != null && keyFile != null;
    }

    /** Fails with a {@link TlsConfigException} when only one of certFile and keyFile is set. */
    void checkKeyPairComplete() {
        if (certFile != null && keyFile == null) {
            throw new TlsConfigException(KEY_FILE_KEY, null, "required when " + CERT_FILE_KEY + " is set");
        }
        if (keyFile != null && certFile == null) {
            throw new TlsConfigException(CERT_FILE_KEY, null, "required when " + KEY_FILE_KEY + " is set");
        }
    }
}
