package dev.tunnel.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Every way a TLS file can be wrong gives a message naming the key, the file and the problem. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PemFilesTest {

    private static CertificateAuthority ca;
    private static CertifiedKey leaf;

    @TempDir
    Path dir;

    @BeforeAll
    static void generate() {
        ca = CertificateAuthority.create("test CA", KeyType.EC_P256);
        leaf = ca.issueServer(List.of("localhost"), KeyType.EC_P256);
    }

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    private Path validCert() throws IOException {
        return write("server.crt", PemWriter.certificates(leaf.certificate()));
    }

    private Path validKey() throws IOException {
        return write("server.key", PemWriter.privateKey(leaf.privateKey(), PemWriter.KeyFormat.PKCS8));
    }

    @Test
    void missingCertFile() throws IOException {
        Path missing = dir.resolve("nope.crt");
        assertThatThrownBy(() -> TlsContexts.server(new TlsFiles(missing, validKey(), null)))
                .isInstanceOf(TlsConfigException.class)
                .hasMessage("transport.tls.certFile " + missing + ": file not found");
    }

    @Test
    void missingTrustedCaFile() {
        Path missing = dir.resolve("ca.crt");
        assertThatThrownBy(() -> TlsContexts.client(new TlsFiles(null, null, missing), true))
                .isInstanceOf(TlsConfigException.class)
                .hasMessage("transport.tls.trustedCaFile " + missing + ": file not found")
                .extracting(e -> ((TlsConfigException) e).configKey()).isEqualTo(TlsFiles.TRUSTED_CA_FILE_KEY);
    }

    @Test
    void emptyKeyFile() throws IOException {
        Path empty = write("empty.key", "");
        assertThatThrownBy(() -> TlsContexts.server(new TlsFiles(validCert(), empty, null)))
                .hasMessage("transport.tls.keyFile " + empty + ": file is empty, expected PEM");
    }

    @Test
    void directoryInsteadOfFile() {
        assertThatThrownBy(() -> PemFiles.readCertificates("transport.tls.certFile", dir))
                .hasMessage("transport.tls.certFile " + dir + ": is a directory, expected a PEM file");
    }

    @Test
    void garbageKeyFile() throws IOException {
        Path garbage = write("garbage.key", "this is not a key\n");
        assertThatThrownBy(() -> TlsContexts.server(new TlsFiles(validCert(), garbage, null)))
                .isInstanceOf(TlsConfigException.class)
                .hasMessage("transport.tls.keyFile " + garbage
                        + ": no private key found (expected a PEM \"PRIVATE KEY\" or \"RSA PRIVATE KEY\" block)");
    }

    @Test
    void garbageCertFile() throws IOException {
        Path garbage = write("garbage.crt", "hello\n");
        assertThatThrownBy(() -> TlsContexts.server(new TlsFiles(garbage, validKey(), null)))
                .hasMessage("transport.tls.certFile " + garbage
                        + ": no certificate found (expected a PEM \"CERTIFICATE\" block)");
    }

    @Test
    void corruptPemBlock() throws IOException {
        Path corrupt = write("corrupt.crt", "-----BEGIN CERTIFICATE-----\nAAAA!!!!\n-----END CERTIFICATE-----\n");
        assertThatThrownBy(() -> PemFiles.readCertificates(TlsFiles.CERT_FILE_KEY, corrupt))
                .isInstanceOf(TlsConfigException.class)
                .hasMessageStartingWith("transport.tls.certFile " + corrupt + ": not a valid PEM certificate file: ");
    }

    @Test
    void binaryDerFile() throws Exception {
        Path der = dir.resolve("server.der");
        Files.write(der, leaf.certificate().getEncoded());
        assertThatThrownBy(() -> PemFiles.readCertificates(TlsFiles.CERT_FILE_KEY, der))
                .hasMessage("transport.tls.certFile " + der
                        + ": not a PEM text file (binary content; DER must be converted to PEM)");
    }

    @Test
    void certificateGivenAsKeyFile() throws IOException {
        Path cert = validCert();
        assertThatThrownBy(() -> TlsContexts.server(new TlsFiles(cert, cert, null)))
                .hasMessageStartingWith("transport.tls.keyFile " + cert + ": no private key found");
    }

    @Test
    void keyOfAnotherCertificate() throws IOException {
        CertifiedKey other = ca.issueServer(List.of("localhost"), KeyType.EC_P256);
        Path cert = validCert();
        Path wrongKey = write("other.key", PemWriter.privateKey(other.privateKey(), PemWriter.KeyFormat.PKCS1));
        assertThatThrownBy(() -> TlsContexts.server(new TlsFiles(cert, wrongKey, null)))
                .hasMessage("transport.tls.keyFile " + wrongKey
                        + ": private key does not match the certificate in transport.tls.certFile " + cert);
        assertThatThrownBy(() -> TlsContexts.client(new TlsFiles(cert, wrongKey, null), false))
                .isInstanceOf(TlsConfigException.class);
    }

    @Test
    void rsaKeyForEcCertificateIsAMismatch() throws IOException {
        CertifiedKey rsa = ca.issueClient("rsa", KeyType.RSA_2048);
        Path cert = validCert();
        Path rsaKey = write("rsa.key", PemWriter.privateKey(rsa.privateKey(), PemWriter.KeyFormat.PKCS1));
        assertThatThrownBy(() -> TlsContexts.server(new TlsFiles(cert, rsaKey, null)))
                .hasMessageContaining("private key does not match the certificate");
    }

    @Test
    void certFileWithoutKeyFile() throws IOException {
        Path cert = validCert();
        assertThatThrownBy(() -> TlsContexts.server(new TlsFiles(cert, null, null)))
                .hasMessage("transport.tls.keyFile: required when transport.tls.certFile is set");
        assertThatThrownBy(() -> TlsContexts.client(new TlsFiles(null, validKey(), null), false))
                .hasMessage("transport.tls.certFile: required when transport.tls.keyFile is set");
    }

    @Test
    void encryptedKeyIsRefusedWithAHint() throws Exception {
        java.io.StringWriter pem = new java.io.StringWriter();
        try (org.bouncycastle.openssl.jcajce.JcaPEMWriter writer = new org.bouncycastle.openssl.jcajce.JcaPEMWriter(pem)) {
            writer.writeObject(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(leaf.privateKey(),
                    new org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder(
                            org.bouncycastle.openssl.PKCS8Generator.AES_256_CBC)
                            .setProvider(new org.bouncycastle.jce.provider.BouncyCastleProvider())
                            .setPassword("secret".toCharArray()).build()));
        }
        Path encrypted = write("enc.key", pem.toString());
        assertThat(pem.toString()).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");
        assertThatThrownBy(() -> PemFiles.readPrivateKey(TlsFiles.KEY_FILE_KEY, encrypted))
                .hasMessage("transport.tls.keyFile " + encrypted
                        + ": the private key is encrypted; store it unencrypted (e.g. openssl pkcs8 -nocrypt)");
    }

    @Test
    void keyAfterEcParametersBlockLoads() throws IOException {
        // "openssl ecparam -genkey" writes an EC PARAMETERS block before the key.
        Path key = write("ec.key", "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
                + PemWriter.privateKey(leaf.privateKey(), PemWriter.KeyFormat.PKCS1));
        java.security.interfaces.ECPrivateKey loaded =
                (java.security.interfaces.ECPrivateKey) PemFiles.readPrivateKey(TlsFiles.KEY_FILE_KEY, key);
        assertThat(loaded.getS()).isEqualTo(((java.security.interfaces.ECPrivateKey) leaf.privateKey()).getS());
        assertThat(PemFiles.matches(loaded, leaf.certificate())).isTrue();
    }

    @Test
    void chainLoadsInOrder() throws IOException {
        Path chain = write("chain.crt", "# comment before\n"
                + PemWriter.certificates(leaf.certificate(), ca.certificate()));
        assertThat(PemFiles.readCertificates(TlsFiles.CERT_FILE_KEY, chain))
                .containsExactly(leaf.certificate(), ca.certificate());
    }

    @Test
    void caLoadsBackFromItsFilesAndIssuesVerifiableCertificates() throws Exception {
        Path cert = dir.resolve("ca.crt");
        Path key = dir.resolve("ca.key");
        ca.write(cert, key);
        CertificateAuthority loaded = CertificateAuthority.load("ca.certFile", cert, "ca.keyFile", key);
        CertifiedKey client = loaded.issueClient("client", KeyType.EC_P256);
        client.certificate().verify(ca.certificate().getPublicKey());
        assertThat(client.sha256Fingerprint()).matches("([0-9A-F]{2}:){31}[0-9A-F]{2}");
        if (Files.getFileStore(key).supportsFileAttributeView("posix")) {
            assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
                    .isEqualTo("rw-------");
        }
    }
}
