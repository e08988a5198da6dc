package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.tls.PemFiles;
import dev.tunnel.tls.TlsContexts;
import dev.tunnel.tls.TlsFiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code tunnel-server certs}: files that load as the config keys expect, and the config lines printed. */
@Timeout(30)
class CertsCommandTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        CertsCommand command = new CertsCommand();
        command.stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        command.stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
        return new CommandLine(command).execute(args);
    }

    @Test
    void writesACaAServerAndClientCertificatesThatLoadForMutualTls() throws Exception {
        Path certs = dir.resolve("certs");
        assertThat(run("--out", certs.toString(), "--server-name", "vps.example", "--server-ip", "1.2.3.4",
                "--client", "home", "--client", "office")).isZero();

        X509Certificate ca = PemFiles.readCertificates("ca", certs.resolve("ca.crt")).get(0);
        X509Certificate server = PemFiles.readCertificates("server", certs.resolve("server.crt")).get(0);
        server.verify(ca.getPublicKey());
        assertThat(server.getSubjectAlternativeNames().stream().map(n -> String.valueOf(n.get(1))).toList())
                .containsExactlyInAnyOrder("vps.example", "1.2.3.4");
        X509Certificate home = PemFiles.readCertificates("client", certs.resolve("client-home.crt")).get(0);
        home.verify(ca.getPublicKey());
        assertThat(Files.exists(certs.resolve("client-office.key"))).isTrue();

        // The files are what transport.tls.* on both sides load.
        TlsContexts.server(new TlsFiles(certs.resolve("server.crt"), certs.resolve("server.key"), certs.resolve("ca.crt")));
        TlsContexts.client(new TlsFiles(certs.resolve("client-home.crt"), certs.resolve("client-home.key"),
                certs.resolve("ca.crt")), true);

        String printed = out.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("certFile = \"" + certs.toAbsolutePath().resolve("server.crt"))
                .contains("trustedCaFile = \"ca.crt\"").contains("certFile = \"client-home.crt\"")
                .contains("serverAddr = \"vps.example\"").contains("Server certificate fingerprint: sha256:");
        assertThat(Files.readString(certs.resolve("ca.key"))).contains("BEGIN PRIVATE KEY");
        assertThat(printed).doesNotContain("PRIVATE KEY");
    }

    @Test
    void neverOverwritesAndNeedsAServerName() {
        assertThat(run("--out", dir.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--server-name");
        assertThat(run("--out", dir.toString(), "--server-ip", "127.0.0.1")).isZero();
        assertThat(run("--out", dir.toString(), "--server-ip", "127.0.0.1")).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("already exists");
        assertThat(List.of(dir.toFile().list())).contains("ca.crt", "server.key");
    }
}
