package dev.tunnel.config;

import java.util.List;
import java.util.stream.Collectors;

/** A config file could not be used; holds every error found, not just the first. */
public final class ConfigException extends Exception {

    private final List<ConfigError> errors;

    public ConfigException(List<ConfigError> errors) {
        super(errors.stream().map(ConfigError::toString).collect(Collectors.joining("\n")));
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one error");
        }
        this.errors = List.copyOf(errors);
    }

    /** Every error, in file order (errors without a line last). */
    public List<ConfigError> errors() {
        return errors;
    }
}
