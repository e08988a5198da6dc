package dev.tunnel.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The value checks validators share. Each adds an error naming the key, the bad value and what
 * is allowed, and returns whether the value was fine. Relative file paths are checked against
 * {@code baseDir} (the working directory when run for real, like frp).
 */
public final class ValueChecks {

    private final ConfigErrors errors;
    private final Path baseDir;

    public ValueChecks(ConfigErrors errors, Path baseDir) {
        this.errors = errors;
        this.baseDir = baseDir;
    }

    public ConfigErrors errors() {
        return errors;
    }

    public boolean range(String key, long value, long min, long max) {
        return check(value >= min && value <= max, key, value + " (expected: " + min + "-" + max + ")");
    }

    public boolean atLeast(String key, long value, long min) {
        return check(value >= min, key, value + " (expected: " + min + " or more)");
    }

    /** A port 1-65535. */
    public boolean port(String key, int value) {
        return range(key, value, 1, 65535);
    }

    /** A duration or interval in seconds where -1 switches the feature off. */
    public boolean positiveOrDisabled(String key, long value) {
        return check(value == -1 || value > 0, key, value + " (expected: -1 to disable, or a positive number of seconds)");
    }

    /** A socket buffer size: 0 keeps the OS default. */
    public boolean bufferSize(String key, int value) {
        return check(value == 0 || value >= 4096 && value <= 67_108_864, key,
                value + " (expected: 0 for the OS default, or 4096-67108864 bytes)");
    }

    public boolean notBlank(String key, String value) {
        if (value == null) {
            return check(false, key, "missing (required)");
        }
        return check(!value.isBlank(), key, "must not be empty");
    }

    /**
     * One of {@code supported}; a value frp knows but tunnel lacks gets "not supported yet"
     * rather than "invalid".
     */
    public boolean oneOf(String key, String value, List<String> supported, List<String> frpOnly) {
        if (supported.contains(value)) {
            return true;
        }
        String allowed = supported.stream().map(v -> '"' + v + '"').collect(Collectors.joining(", "));
        if (frpOnly.contains(value)) {
            errors.add(key, key + " = \"" + value + "\" is not supported yet (supported: " + allowed + ")");
        } else {
            errors.add(key, (value == null ? "missing" : '"' + value + '"') + " (expected: " + allowed + ")");
        }
        return false;
    }

    /** Two settings that only make sense together (like a certificate and its key): the missing one is named. */
    public boolean together(String keyA, String valueA, String keyB, String valueB) {
        if ((valueA == null) == (valueB == null)) {
            return true;
        }
        return check(false, valueA == null ? keyA : keyB,
                "missing (" + keyA + " and " + keyB + " must be set together)");
    }

    /** A file that exists and can be read; null (unset) passes. */
    public boolean readableFile(String key, String value) {
        if (value == null) {
            return true;
        }
        Path p = resolve(value);
        if (!Files.isRegularFile(p)) {
            return check(false, key, "file \"" + value + "\" does not exist (looked for " + p + ")");
        }
        return check(Files.isReadable(p), key, "file \"" + value + "\" is not readable");
    }

    /**
     * A secret given either inline ({@code tokenKey}) or in a file ({@code fileKey}, our
     * extension): returns the secret, the file's content without trailing line breaks, or null
     * after adding an error. Error messages never contain the secret or the file's content.
     */
    public String secret(String tokenKey, String token, String fileKey, String file) {
        if (file == null) {
            return token;
        }
        if (token != null && !token.isEmpty()) {
            check(false, fileKey, "set together with " + tokenKey + " (expected: one of them)");
            return null;
        }
        if (!readableFile(fileKey, file)) {
            return null;
        }
        try {
            String content = Files.readString(resolve(file), java.nio.charset.StandardCharsets.UTF_8).replaceAll("[\\r\\n]+$", "");
            check(!content.isEmpty(), fileKey, "file \"" + file + "\" is empty");
            return content.isEmpty() ? null : content;
        } catch (java.io.IOException e) {
            check(false, fileKey, "file \"" + file + "\" cannot be read (" + e.getClass().getSimpleName() + ")");
            return null;
        }
    }

    /** An existing directory. */
    public boolean directory(String key, String value) {
        if (!notBlank(key, value)) {
            return false;
        }
        Path p = resolve(value);
        return check(Files.isDirectory(p), key, "directory \"" + value + "\" does not exist (looked for " + p + ")");
    }

    /** Adds {@code message} for {@code key} unless {@code ok}. */
    public boolean check(boolean ok, String key, String message) {
        if (!ok) {
            errors.add(key, message);
        }
        return ok;
    }

    private Path resolve(String value) {
        return baseDir.resolve(value).toAbsolutePath().normalize();
    }
}
