package dev.tunnel.config;

/** Where each key path of a config file is written: {@link KeyLocator} for TOML, {@link KeyLineMap} for YAML and JSON. */
public interface KeyLines {

    /** The 1-based line where {@code keyPath} (or else its nearest enclosing table) is defined, 0 if unknown. */
    int lineOf(String keyPath);
}
