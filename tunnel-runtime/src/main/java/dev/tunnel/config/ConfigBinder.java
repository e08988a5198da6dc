package dev.tunnel.config;

/**
 * Parses config text and binds it to a config class. Implemented with Jackson in
 * {@code config.jackson}, which {@link ConfigLoader} loads in a
 * {@link dev.tunnel.runtime.ThrowawayLoader} so that Jackson's classes are unloaded once
 * the config is read.
 */
public interface ConfigBinder {

    /**
     * Binds TOML text, whose key lines {@code locator} has already found.
     *
     * @return an instance of {@code type}; every error that does not stop parsing goes to {@code errors}
     * @throws ConfigException on a TOML syntax error (the parser cannot go on)
     */
    Object bindToml(String toml, Class<?> type, UnsupportedKeys unsupported, EnvTemplate env, ConfigErrors errors,
                    KeyLocator locator) throws ConfigException;

    /**
     * Binds YAML or JSON text, recording each key's line in {@code lines} as it reads (the
     * errors collector looks them up there), and refusing values nested deeper than
     * {@link KeyLocator#MAX_DEPTH} and YAML aliases.
     *
     * @throws ConfigException on a syntax error or a refused document
     */
    Object bindTree(String text, ConfigFormat format, Class<?> type, UnsupportedKeys unsupported, EnvTemplate env,
                    ConfigErrors errors, KeyLineMap lines) throws ConfigException;
}
