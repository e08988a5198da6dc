package dev.tunnel.config;

/**
 * Parses TOML text and binds it to a config class. Implemented with Jackson in
 * {@code config.jackson}, which {@link ConfigLoader} loads in a
 * {@link dev.tunnel.runtime.ThrowawayLoader} so that Jackson's classes are unloaded once
 * the config is read.
 */
public interface TomlBinder {

    /**
     * @return an instance of {@code type}; every error that does not stop parsing goes to {@code errors}
     * @throws ConfigException on a TOML syntax error (the parser cannot go on)
     */
    Object bind(String toml, Class<?> type, UnsupportedKeys unsupported, EnvTemplate env, ConfigErrors errors,
                KeyLocator locator) throws ConfigException;
}
