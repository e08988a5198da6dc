package dev.tunnel.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Keeps the server's self-signed certificate in a directory ({@code transport.tls.selfSignedDir})
 * so it survives restarts and its fingerprint can be pinned by clients: {@code self-signed.crt}
 * and {@code self-signed.key} (owner-only). Created on first use, loaded afterwards.
 */
final class SelfSignedStore {
    static final String DIR_KEY = "transport.tls.selfSignedDir";
    static final String CERT = "self-signed.crt";
    static final String KEY = "self-signed.key";

    private SelfSignedStore() {
    }

    static CertifiedKey loadOrCreate(Path dir) {
        Path cert = dir.resolve(CERT);
        Path key = dir.resolve(KEY);
        if (Files.exists(cert) || Files.exists(key)) {
            CertificateAuthority loaded = CertificateAuthority.load(DIR_KEY, cert, DIR_KEY, key);
            return loaded.certifiedKey();
        }
        CertifiedKey created = CertificateAuthority.selfSignedServer(KeyType.EC_P256);
        try {
            Files.createDirectories(dir);
            CertificateAuthority.write(created, cert, key, PemWriter.KeyFormat.PKCS8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the self-signed certificate to " + DIR_KEY + " " + dir
                    + ": " + e.getMessage(), e);
        }
        return created;
    }
}
