package dev.tunnel.tls;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * {@link KeyMaterial} with BouncyCastle. Loaded only by {@link KeyMaterial#isolated}, in a loader
 * of its own: it and the classes it uses here (see {@link KeyMaterial#OWN}) reach the rest of the
 * package through public members only.
 */
public final class BcKeyMaterial implements KeyMaterial {

    @Override
    public List<X509Certificate> readCertificates(String configKey, Path file) {
        return PemFiles.readCertificates(configKey, file);
    }

    @Override
    public PrivateKey readPrivateKey(String configKey, Path file) {
        return PemFiles.readPrivateKey(configKey, file);
    }

    @Override
    public boolean matches(PrivateKey key, X509Certificate certificate) {
        return PemFiles.matches(key, certificate);
    }

    @Override
    public CertifiedKey selfSignedServer(Path dir) {
        return dir == null ? CertificateAuthority.selfSignedServer(KeyType.EC_P256) : SelfSignedStore.loadOrCreate(dir);
    }
}
