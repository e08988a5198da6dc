package dev.tunnel.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Collects the errors of one config file; finds the line of each key path in the raw text.
 * Validators add to it and never stop at the first problem.
 */
public final class ConfigErrors {

    private final String file;
    private final KeyLines locator;
    private final List<ConfigError> errors = new ArrayList<>();

    public ConfigErrors(String file, KeyLines locator) {
        this.file = file;
        this.locator = locator;
    }

    /** Adds an error about {@code keyPath}; its line is looked up in the file text. */
    public void add(String keyPath, String message) {
        addAtLine(locator.lineOf(keyPath), keyPath, message);
    }

    /** Adds an error at a known line (0 when unknown). */
    public void addAtLine(int line, String keyPath, String message) {
        errors.add(new ConfigError(file, line, keyPath, message));
    }

    /** Adds an error found in another file this one includes; it keeps its own file name and line. */
    public void add(ConfigError error) {
        errors.add(error);
    }

    public String file() {
        return file;
    }

    public boolean isEmpty() {
        return errors.isEmpty();
    }

    /** The errors so far, sorted by line; errors without a line come last. */
    public List<ConfigError> list() {
        List<ConfigError> sorted = new ArrayList<>(errors);
        sorted.sort(Comparator.comparingInt((ConfigError e) -> e.line() == 0 ? Integer.MAX_VALUE : e.line()));
        return sorted;
    }

    /** Throws a {@link ConfigException} listing every error, if there is any. */
    public void throwIfAny() throws ConfigException {
        if (!errors.isEmpty()) {
            throw new ConfigException(list());
        }
    }
}
