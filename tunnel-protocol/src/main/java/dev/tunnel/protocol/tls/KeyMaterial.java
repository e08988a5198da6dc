package dev.tunnel.protocol.tls;

import dev.tunnel.protocol.footprint.ThrowawayLoader;

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
        "dev.tunnel.protocol.tls.BcKeyMaterial", "dev.tunnel.protocol.tls.PemFiles", "dev.tunnel.protocol.tls.PemWriter",
        "dev.tunnel.protocol.tls.CertificateAuthority", "dev.tunnel.protocol.tls.CertificateBuilder",
        "dev.tunnel.protocol.tls.SelfSignedStore", "org.bouncycastle.",
    };

    /** Runs {@code work} with BouncyCastle in a throwaway class loader, on a short-lived thread. */
    static <R> R isolated(java.util.function.Function<KeyMaterial, R> work) {
        KeyMaterial material = ThrowawayLoader.instance(KeyMaterial.class, OWN[0], OWN);
        return ThrowawayLoader.onThread("tls-key-material", () -> work.apply(material));
    }
}
