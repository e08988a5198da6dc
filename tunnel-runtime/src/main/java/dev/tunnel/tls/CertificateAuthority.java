package dev.tunnel.tls;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A certificate authority that issues server and client certificates for mutual TLS, and the
 * self-signed certificate a server uses when it is given none. Used by the {@code certs} command
 * and by tests. Immutable and thread-safe.
 */
public final class CertificateAuthority {

    /** Validity of generated CA certificates. */
    public static final Duration CA_VALIDITY = Duration.ofDays(3650);
    /** Validity of generated server and client certificates. */
    public static final Duration LEAF_VALIDITY = Duration.ofDays(365);

    private final CertifiedKey ca;

    private CertificateAuthority(CertifiedKey ca) {
        this.ca = ca;
    }

    /** Generates a new self-signed CA named {@code CN=commonName}. */
    public static CertificateAuthority create(String commonName, KeyType keyType) {
        KeyPair keys = keyType.generateKeyPair();
        X509Certificate certificate = CertificateBuilder.build(CertificateBuilder.Role.CA, commonName, List.of(),
                keys.getPublic(), null, keys.getPrivate(), CA_VALIDITY);
        return new CertificateAuthority(new CertifiedKey(keys.getPrivate(), certificate));
    }

    /** Loads an existing CA from PEM files; failures name the given config keys. */
    public static CertificateAuthority load(String certKey, Path certFile, String keyKey, Path keyFile) {
        X509Certificate certificate = PemFiles.readCertificates(certKey, certFile).get(0);
        PrivateKey key = PemFiles.readPrivateKey(keyKey, keyFile);
        if (!PemFiles.matches(key, certificate)) {
            throw new TlsConfigException(keyKey, keyFile, "private key does not match the certificate in " + certFile);
        }
        return new CertificateAuthority(new CertifiedKey(key, certificate));
    }

    /** The CA's certificate: what peers put in their {@code trustedCaFile}. */
    public X509Certificate certificate() {
        return ca.certificate();
    }

    /** The CA's certificate and key. */
    public CertifiedKey certifiedKey() {
        return ca;
    }

    /**
     * Issues a server certificate valid for one year.
     *
     * @param names host names and IP literals for the subject alternative name; the first is also the CN
     */
    public CertifiedKey issueServer(List<String> names, KeyType keyType) {
        if (names.isEmpty()) {
            throw new IllegalArgumentException("a server certificate needs at least one host name or IP address");
        }
        return issue(CertificateBuilder.Role.SERVER, names.get(0), names, keyType);
    }

    /** Issues a client certificate named {@code CN=commonName}, valid for one year. */
    public CertifiedKey issueClient(String commonName, KeyType keyType) {
        return issue(CertificateBuilder.Role.CLIENT, commonName, List.of(), keyType);
    }

    private CertifiedKey issue(CertificateBuilder.Role role, String commonName, List<String> names, KeyType keyType) {
        Objects.requireNonNull(commonName, "commonName");
        KeyPair keys = keyType.generateKeyPair();
        X509Certificate certificate = CertificateBuilder.build(role, commonName, names, keys.getPublic(),
                ca.certificate(), ca.privateKey(), LEAF_VALIDITY);
        return new CertifiedKey(keys.getPrivate(), certificate);
    }

    /**
     * Generates a self-signed server certificate for {@code localhost}, {@code 127.0.0.1}, {@code ::1}
     * and this machine's host name (when it can be found), valid for one year.
     */
    public static CertifiedKey selfSignedServer(KeyType keyType) {
        List<String> names = new ArrayList<>(List.of("localhost", "127.0.0.1", "::1"));
        try {
            String hostName = InetAddress.getLocalHost().getHostName();
            if (hostName != null && !hostName.isBlank()) {
                names.add(hostName);
            }
        } catch (UnknownHostException e) {
            // No resolvable host name: the certificate covers the loopback names only.
        }
        KeyPair keys = keyType.generateKeyPair();
        X509Certificate certificate = CertificateBuilder.build(CertificateBuilder.Role.SERVER, "tunnel self-signed",
                names, keys.getPublic(), null, keys.getPrivate(), LEAF_VALIDITY);
        return new CertifiedKey(keys.getPrivate(), certificate);
    }

    /** Writes the CA certificate (PEM) to {@code certFile} and its key (PKCS#8 PEM) to {@code keyFile}. */
    public void write(Path certFile, Path keyFile) throws IOException {
        write(ca, certFile, keyFile, PemWriter.KeyFormat.PKCS8);
    }

    /** Writes a certificate (PEM) and its key in the given format. */
    public static void write(CertifiedKey certifiedKey, Path certFile, Path keyFile, PemWriter.KeyFormat format)
            throws IOException {
        PemWriter.writeCertificates(certFile, certifiedKey.certificate());
        PemWriter.writePrivateKey(keyFile, certifiedKey.privateKey(), format);
    }
}
