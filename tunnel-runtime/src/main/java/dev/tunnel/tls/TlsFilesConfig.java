package dev.tunnel.tls;

import dev.tunnel.config.ValueChecks;
import java.nio.file.Path;

/**
 * The PEM files of a {@code [transport.tls]} table, which frps.toml and frpc.toml share: the
 * certificate this side presents and the CA the peer's certificate must chain to. Each side's
 * table extends this with its own keys and says what an unset file means there.
 */
public class TlsFilesConfig {
    /** PEM certificate this side presents. Needs keyFile. */
    public String certFile;
    /** PEM private key for certFile. */
    public String keyFile;
    /** PEM CA bundle the peer's certificate must chain to. */
    public String trustedCaFile;

    /** Checks the files; {@code prefix} is the table's key ("transport.tls"). */
    public void validate(String prefix, ValueChecks checks) {
        checks.together(prefix + ".certFile", certFile, prefix + ".keyFile", keyFile);
        checks.readableFile(prefix + ".certFile", certFile);
        checks.readableFile(prefix + ".keyFile", keyFile);
        checks.readableFile(prefix + ".trustedCaFile", trustedCaFile);
    }

    /** The files as paths; an unset or empty one is null. */
    public TlsFiles files() {
        return new TlsFiles(path(certFile), path(keyFile), path(trustedCaFile));
    }

    /** {@code file} as a path, or null when unset or empty. */
    public static Path path(String file) {
        return file == null || file.isEmpty() ? null : Path.of(file);
    }
}
