package dev.tunnel.config;

import java.util.Objects;

/**
 * One problem in a config file.
 *
 * <p>Rendered as {@code file:line: keyPath: message}, for example
 * {@code config/client.toml:12: proxies[1].localPort: 70000 (expected: 1-65535)}. The line is left
 * out when unknown (0); the key path is left out when empty or when the message already quotes it
 * (as in {@code unknown key "transport.tcpMx" (did you mean "transport.tcpMux"?)}) or starts
 * with it (as in {@code transport.protocol = "kcp" is not supported yet (supported: "tcp")}).
 *
 * @param file    the file name as the user gave it
 * @param line    1-based line, 0 when unknown
 * @param keyPath dotted key path with 0-based array indexes, e.g. {@code proxies[1].localPort}; empty for the whole file
 * @param message what is wrong and what is allowed
 */
public record ConfigError(String file, int line, String keyPath, String message) {

    public ConfigError {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(keyPath, "keyPath");
        Objects.requireNonNull(message, "message");
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(file);
        if (line > 0) {
            sb.append(':').append(line);
        }
        sb.append(": ");
        if (!keyPath.isEmpty() && !namesKey()) {
            sb.append(keyPath).append(": ");
        }
        return sb.append(message).toString();
    }

    private boolean namesKey() {
        return message.startsWith(keyPath + " ") || message.contains('"' + keyPath + '"');
    }
}
