package dev.tunnel.protocol.tls;

import java.nio.file.Path;

/** TLS files from the config; any may be null. */
public record TlsFiles(Path certFile, Path keyFile, Path trustedCaFile) {
}
