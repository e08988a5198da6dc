package dev.tunnel.tls;

import dev.tunnel.runtime.ThrowawayLoader;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * What {@link TlsContexts} needs from BouncyCastle: PEM files and the self-signed certificate.
 * {@link #isolated} runs it in a {@link ThrowawayLoader}, so that BouncyCastle's classes (about 200,
 * and their tables of object identifiers) are unloaded once the contexts are built.
 */
public interface KeyMaterial {

    /** @see PemFiles#readCertificates */
    List<X509Certificate> readCertificates(String configKey, Path file);

    /** @see PemFiles#readPrivateKey */
    PrivateKey readPrivateKey(String configKey, Path file);

    /** Whether {@code key} is the private half of {@code certificate}'s public key. */
    boolean matches(PrivateKey key, X509Certificate certificate);

    /** A self-signed server certificate, kept in {@code dir} when it is not null (see {@code SelfSignedStore}). */
    CertifiedKey selfSignedServer(Path dir);

    /** The classes {@link BcKeyMaterial} is made of, besides BouncyCastle's. */
    String[] OWN = {
        "dev.tunnel.tls.BcKeyMaterial", "dev.tunnel.tls.PemFiles", "dev.tunnel.tls.PemWriter",
        "dev.tunnel.tls.CertificateAuthority", "dev.tunnel.tls.CertificateBuilder",
        "dev.tunnel.tls.SelfSignedStore", "org.bouncycastle.",
    };

    /** Runs {@code work} with BouncyCastle in a throwaway class loader, on a short-lived thread. */
    static <R> R isolated(java.util.function.Function<KeyMaterial, R> work) {
        KeyMaterial material = ThrowawayLoader.instance(KeyMaterial.class, OWN[0], OWN);
        return ThrowawayLoader.onThread("tls-key-material", () -> work.apply(material));
    }
}
