package dev.tunnel.tls;

import java.nio.file.Path;

/**
 * A TLS file that cannot be used: missing, unreadable, not PEM, or not matching its partner.
 * The message names the config key, the file and what is wrong, e.g.
 * {@code transport.tls.keyFile /etc/x.key: no private key found (expected a PEM "PRIVATE KEY" or "RSA PRIVATE KEY" block)}.
 */
public final class TlsConfigException extends RuntimeException {

    private final String configKey;
    private final transient Path file;

    /**
     * @param configKey the config key that named the file, e.g. {@code transport.tls.certFile}
     * @param file      the file, or {@code null} when the problem is that it was not given
     * @param problem   what is wrong, in words a user can act on
     */
    public TlsConfigException(String configKey, Path file, String problem) {
        this(configKey, file, problem, null);
    }

    public TlsConfigException(String configKey, Path file, String problem, Throwable cause) {
        super(configKey + (file == null ? "" : " " + file) + ": " + problem, cause);
        this.configKey = configKey;
        this.file = file;
    }

    /** The config key that named the offending file. */
    public String configKey() {
        return configKey;
    }

    /** The offending file, or {@code null} when it was missing from the config. */
    public Path file() {
        return file;
    }
}
