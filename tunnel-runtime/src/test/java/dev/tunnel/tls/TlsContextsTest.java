package dev.tunnel.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** Handshakes over real sockets on 127.0.0.1 with contexts built from PEM files. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsContextsTest {

    private static EventLoopGroup group;
    private static CertificateAuthority ca;
    private static CertificateAuthority otherCa;

    @TempDir
    Path dir;

    @BeforeAll
    static void startGroup() {
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        ca = CertificateAuthority.create("test CA", KeyType.EC_P256);
        otherCa = CertificateAuthority.create("other CA", KeyType.EC_P256);
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static void assumeAvailable(SslProvider provider) {
        if (provider == SslProvider.OPENSSL) {
            assumeTrue(OpenSsl.isAvailable(), "netty-tcnative is not available on this platform");
        }
    }

    private Path write(String name, String text) throws IOException {
        Path file = dir.resolve(name);
        java.nio.file.Files.writeString(file, text);
        return file;
    }

    private Path caFile(CertificateAuthority authority, String name) throws IOException {
        return write(name, PemWriter.certificates(authority.certificate()));
    }

    /** Writes cert + key for a leaf and returns the TlsFiles naming them (with the given CA file). */
    private TlsFiles files(String prefix, CertifiedKey leaf, PemWriter.KeyFormat format, Path trustedCa)
            throws IOException {
        Path cert = dir.resolve(prefix + ".crt");
        Path key = dir.resolve(prefix + ".key");
        CertificateAuthority.write(leaf, cert, key, format);
        return new TlsFiles(cert, key, trustedCa);
    }

    @Test
    void providerIsOpenSslWhenAvailable() {
        assertThat(TlsContexts.provider()).isEqualTo(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK);
        assertThat(TlsContexts.providerName()).isNotBlank();
    }

    @ParameterizedTest
    @CsvSource({"OPENSSL,OPENSSL", "JDK,JDK", "OPENSSL,JDK", "JDK,OPENSSL"})
    void selfSignedServerAndNonVerifyingClientNegotiateTls13(SslProvider serverProvider, SslProvider clientProvider)
            throws Exception {
        assumeAvailable(serverProvider);
        assumeAvailable(clientProvider);
        SslContext server = TlsContexts.server(TlsFiles.NONE, serverProvider);
        SslContext client = TlsContexts.client(TlsFiles.NONE, false, clientProvider);

        try (TlsEcho echo = TlsEcho.start(group, server)) {
            TlsEcho.Result result = echo.roundTrip(client, "127.0.0.1", false, "hello over tls");

            assertThat(result.echoed()).isEqualTo("hello over tls");
            assertThat(result.protocol()).isEqualTo("TLSv1.3");
            X509Certificate peer = (X509Certificate) result.peerCertificates()[0];
            List<String> sans = peer.getSubjectAlternativeNames().stream().map(name -> String.valueOf(name.get(1))).toList();
            assertThat(sans).contains("localhost", "127.0.0.1");
        }
    }

    @ParameterizedTest
    @EnumSource(value = SslProvider.class, names = {"OPENSSL", "JDK"})
    void caSignedServerIsVerifiedByClientTrustingTheCa(SslProvider provider) throws Exception {
        assumeAvailable(provider);
        TlsFiles serverFiles = files("server", ca.issueServer(List.of("localhost", "127.0.0.1"), KeyType.EC_P256),
                PemWriter.KeyFormat.PKCS8, null);
        TlsFiles clientFiles = new TlsFiles(null, null, caFile(ca, "ca.crt"));

        try (TlsEcho echo = TlsEcho.start(group, TlsContexts.server(serverFiles, provider))) {
            SslContext client = TlsContexts.client(clientFiles, true, provider);
            assertThat(echo.roundTrip(client, "localhost", true, "ping").echoed()).isEqualTo("ping");
            assertThat(echo.roundTrip(client, "127.0.0.1", true, "ping").echoed()).isEqualTo("ping");
        }
    }

    @ParameterizedTest
    @EnumSource(value = SslProvider.class, names = {"OPENSSL", "JDK"})
    void hostnameVerificationRejectsNameNotInCertificate(SslProvider provider) throws Exception {
        assumeAvailable(provider);
        TlsFiles serverFiles = files("server", ca.issueServer(List.of("localhost"), KeyType.EC_P256),
                PemWriter.KeyFormat.PKCS8, null);
        SslContext client = TlsContexts.client(new TlsFiles(null, null, caFile(ca, "ca.crt")), true, provider);

        try (TlsEcho echo = TlsEcho.start(group, TlsContexts.server(serverFiles, provider))) {
            assertThatThrownBy(() -> echo.roundTrip(client, "tunnel.example", true, "ping"))
                    .isInstanceOf(ExecutionException.class)
                    .hasRootCauseInstanceOf(java.security.cert.CertificateException.class);
            // Same name without host name verification: the chain alone is trusted.
            assertThat(echo.roundTrip(client, "tunnel.example", false, "ping").echoed()).isEqualTo("ping");
        }
    }

    @ParameterizedTest
    @EnumSource(value = SslProvider.class, names = {"OPENSSL", "JDK"})
    void clientTrustingAnotherCaFailsTheHandshake(SslProvider provider) throws Exception {
        assumeAvailable(provider);
        TlsFiles serverFiles = files("server", ca.issueServer(List.of("localhost"), KeyType.EC_P256),
                PemWriter.KeyFormat.PKCS8, null);
        SslContext client = TlsContexts.client(new TlsFiles(null, null, caFile(otherCa, "other.crt")), true, provider);

        try (TlsEcho echo = TlsEcho.start(group, TlsContexts.server(serverFiles, provider))) {
            assertThatThrownBy(() -> echo.roundTrip(client, "localhost", false, "ping"))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SSLHandshakeException.class);
        }
    }

    @Test
    void verifyingClientWithoutCaRejectsSelfSignedServer() throws Exception {
        SslContext client = TlsContexts.client(TlsFiles.NONE, true);
        try (TlsEcho echo = TlsEcho.start(group, TlsContexts.server(TlsFiles.NONE))) {
            assertThatThrownBy(() -> echo.roundTrip(client, "localhost", false, "ping"))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SSLHandshakeException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(value = SslProvider.class, names = {"OPENSSL", "JDK"})
    void mutualTlsRequiresAClientCertificateFromTheCa(SslProvider provider) throws Exception {
        assumeAvailable(provider);
        Path caCert = caFile(ca, "ca.crt");
        TlsFiles serverFiles = files("server", ca.issueServer(List.of("localhost"), KeyType.EC_P256),
                PemWriter.KeyFormat.PKCS8, caCert);

        try (TlsEcho echo = TlsEcho.start(group, TlsContexts.server(serverFiles, provider))) {
            SslContext anonymous = TlsContexts.client(new TlsFiles(null, null, caCert), true, provider);
            assertThatThrownBy(() -> echo.roundTrip(anonymous, "localhost", true, "ping"))
                    .isInstanceOf(ExecutionException.class);
            assertThat(echo.nextServerFailure()).isInstanceOf(SSLHandshakeException.class);

            TlsFiles strangerFiles = files("stranger", otherCa.issueClient("stranger", KeyType.EC_P256),
                    PemWriter.KeyFormat.PKCS8, caCert);
            SslContext stranger = TlsContexts.client(strangerFiles, true, provider);
            assertThatThrownBy(() -> echo.roundTrip(stranger, "localhost", true, "ping"))
                    .isInstanceOf(ExecutionException.class);
            assertThat(echo.nextServerFailure()).isInstanceOf(SSLHandshakeException.class);

            TlsFiles memberFiles = files("member", ca.issueClient("member", KeyType.EC_P256),
                    PemWriter.KeyFormat.PKCS8, caCert);
            SslContext member = TlsContexts.client(memberFiles, true, provider);
            assertThat(echo.roundTrip(member, "localhost", true, "ping").echoed()).isEqualTo("ping");
        }
    }

    @ParameterizedTest
    @CsvSource({"EC_P256,PKCS1", "EC_P256,PKCS8", "RSA_2048,PKCS1", "RSA_2048,PKCS8"})
    void serverKeysLoadInPkcs1AndPkcs8(KeyType keyType, PemWriter.KeyFormat format) throws Exception {
        CertifiedKey leaf = ca.issueServer(List.of("localhost"), keyType);
        TlsFiles serverFiles = files("server", leaf, format, null);
        String header = format == PemWriter.KeyFormat.PKCS8 ? "-----BEGIN PRIVATE KEY-----"
                : keyType == KeyType.RSA_2048 ? "-----BEGIN RSA PRIVATE KEY-----" : "-----BEGIN EC PRIVATE KEY-----";
        assertThat(java.nio.file.Files.readString(serverFiles.keyFile())).startsWith(header);

        SslContext client = TlsContexts.client(new TlsFiles(null, null, caFile(ca, "ca.crt")), true);
        try (TlsEcho echo = TlsEcho.start(group, TlsContexts.server(serverFiles))) {
            TlsEcho.Result result = echo.roundTrip(client, "localhost", true, "key " + keyType + " " + format);
            assertThat(result.echoed()).isEqualTo("key " + keyType + " " + format);
            assertThat(result.peerCertificates()[0]).isEqualTo(leaf.certificate());
        }
    }

    @Test
    void serverPresentsTheWholeChainFromCertFile() throws Exception {
        CertifiedKey leaf = ca.issueServer(List.of("localhost"), KeyType.EC_P256);
        Path cert = write("chain.crt", PemWriter.certificates(leaf.certificate(), ca.certificate()));
        Path key = write("chain.key", PemWriter.privateKey(leaf.privateKey(), PemWriter.KeyFormat.PKCS8));

        SslContext client = TlsContexts.client(TlsFiles.NONE, false);
        try (TlsEcho echo = TlsEcho.start(group, TlsContexts.server(new TlsFiles(cert, key, null)))) {
            assertThat(echo.roundTrip(client, "localhost", false, "chain").peerCertificates())
                    .containsExactly(leaf.certificate(), ca.certificate());
        }
    }
}
