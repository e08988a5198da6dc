package dev.tunnel.server;

import dev.tunnel.tls.CertificateAuthority;
import dev.tunnel.tls.CertifiedKey;
import dev.tunnel.tls.KeyType;
import dev.tunnel.tls.PemWriter;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code certs --out DIR --server-name vps.example --server-ip 1.2.3.4 --client home}: writes a
 * CA, a server certificate for the given names and addresses, and one client certificate per
 * {@code --client}, as PEM files ready for {@code transport.tls.*}, and prints the config lines
 * to use. Keys are owner-readable only. Existing files are never overwritten.
 */
@Command(name = "certs", mixinStandardHelpOptions = true,
        description = "Writes a CA, a server certificate and client certificates (PEM) for mutual TLS.")
final class CertsCommand implements Callable<Integer> {

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Directory to write into (created if missing).")
    Path out;

    @Option(names = "--server-name", paramLabel = "NAME", description = "Host name clients dial (repeatable).")
    List<String> serverNames = new ArrayList<>();

    @Option(names = "--server-ip", paramLabel = "IP", description = "IP address clients dial (repeatable).")
    List<String> serverIps = new ArrayList<>();

    @Option(names = "--client", paramLabel = "NAME", description = "Client certificate to issue (repeatable).")
    List<String> clients = new ArrayList<>();

    @Option(names = "--key-type", paramLabel = "TYPE", defaultValue = "EC_P256",
            description = "EC_P256 (default) or RSA_2048.")
    KeyType keyType;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    @Override
    public Integer call() throws Exception {
        List<String> names = new ArrayList<>(serverNames);
        names.addAll(serverIps);
        if (names.isEmpty()) {
            stderr.println("certs: give at least one --server-name or --server-ip (what clients put in serverAddr)");
            return 2;
        }
        List<Path> targets = new ArrayList<>(List.of(out.resolve("ca.crt"), out.resolve("ca.key"),
                out.resolve("server.crt"), out.resolve("server.key")));
        for (String client : clients) {
            targets.add(out.resolve("client-" + client + ".crt"));
            targets.add(out.resolve("client-" + client + ".key"));
        }
        for (Path p : targets) {
            if (Files.exists(p)) {
                stderr.println("certs: " + p + " already exists; not overwriting anything (choose another --out)");
                return 1;
            }
        }
        Files.createDirectories(out);
        CertificateAuthority ca = CertificateAuthority.create("tunnel CA", keyType);
        ca.write(out.resolve("ca.crt"), out.resolve("ca.key"));
        CertifiedKey server = ca.issueServer(names, keyType);
        CertificateAuthority.write(server, out.resolve("server.crt"), out.resolve("server.key"), PemWriter.KeyFormat.PKCS8);
        for (String client : clients) {
            CertificateAuthority.write(ca.issueClient(client, keyType), out.resolve("client-" + client + ".crt"),
                    out.resolve("client-" + client + ".key"), PemWriter.KeyFormat.PKCS8);
        }
        printConfig(names, server);
        return 0;
    }

    private void printConfig(List<String> names, CertifiedKey server) {
        Path dir = out.toAbsolutePath().normalize();
        stdout.println("Wrote " + dir + ": ca.crt, ca.key (keep it offline), server.crt, server.key"
                + (clients.isEmpty() ? "" : ", and client-NAME.crt/.key for " + String.join(", ", clients)));
        stdout.println("Server certificate fingerprint: sha256:" + server.sha256Fingerprint());
        stdout.println();
        stdout.println("# server.toml");
        stdout.println("[transport.tls]");
        stdout.println("force = true");
        stdout.println("certFile = \"" + dir.resolve("server.crt") + "\"");
        stdout.println("keyFile = \"" + dir.resolve("server.key") + "\"");
        if (!clients.isEmpty()) {
            stdout.println("trustedCaFile = \"" + dir.resolve("ca.crt") + "\"   # clients must present a certificate");
        }
        for (String client : clients.isEmpty() ? List.of("") : clients) {
            stdout.println();
            stdout.println("# client.toml" + (client.isEmpty() ? "" : " for " + client) + " (copy the files over)");
            stdout.println("serverAddr = \"" + names.get(0) + "\"");
            stdout.println("[transport.tls]");
            stdout.println("trustedCaFile = \"ca.crt\"");
            if (!client.isEmpty()) {
                stdout.println("certFile = \"client-" + client + ".crt\"");
                stdout.println("keyFile = \"client-" + client + ".key\"");
            }
        }
    }
}
