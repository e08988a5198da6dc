package dev.tunnel.e2e;

import dev.tunnel.tls.CertificateAuthority;
import dev.tunnel.tls.CertifiedKey;
import dev.tunnel.tls.KeyType;
import dev.tunnel.tls.PemWriter;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import java.util.List;

/** Certificates written as PEM files for one test: a CA, server certificates, client certificates. */
final class TestPki {
    final CertificateAuthority ca = CertificateAuthority.create("tunnel test CA", KeyType.EC_P256);
    private final Path dir;

    /** A certificate and key on disk. */
    record Files(CertifiedKey key, Path certFile, Path keyFile) {
        String certPath() {
            return certFile.toString();
        }

        String keyPath() {
            return keyFile.toString();
        }

        /** A TLS server context presenting this certificate (for a relay). */
        SslContext serverContext() throws Exception {
            return SslContextBuilder.forServer(key.privateKey(), key.certificate()).build();
        }
    }

    TestPki(Path dir) throws Exception {
        this.dir = dir;
        ca.write(dir.resolve("ca.crt"), dir.resolve("ca.key"));
    }

    Path caFile() {
        return dir.resolve("ca.crt");
    }

    Files server(String fileName, List<String> names) throws Exception {
        return write(fileName, ca.issueServer(names, KeyType.EC_P256));
    }

    Files client(String name) throws Exception {
        return write(name, ca.issueClient(name, KeyType.EC_P256));
    }

    /** A certificate from an unrelated CA, as a man in the middle would present. */
    Files foreign(String fileName) throws Exception {
        CertificateAuthority other = CertificateAuthority.create("someone else", KeyType.EC_P256);
        return write(fileName, other.issueServer(List.of("localhost", "127.0.0.1"), KeyType.EC_P256));
    }

    private Files write(String name, CertifiedKey key) throws Exception {
        Path cert = dir.resolve(name + ".crt");
        Path pem = dir.resolve(name + ".key");
        CertificateAuthority.write(key, cert, pem, PemWriter.KeyFormat.PKCS8);
        return new Files(key, cert, pem);
    }
}
