package dev.tunnel.config;

import java.util.Locale;

/**
 * The syntax of a config file, chosen by its name as frp chooses it: {@code .yaml}/{@code .yml}
 * is YAML, {@code .json} is JSON, anything else TOML. Key names, checks and errors are the same
 * in all three.
 */
public enum ConfigFormat {
    TOML, YAML, JSON;

    /** The format for a file named {@code fileName} (a path or a label such as "request body": TOML). */
    public static ConfigFormat of(String fileName) {
        String name = fileName.toLowerCase(Locale.ROOT);
        if (name.endsWith(".yaml") || name.endsWith(".yml")) {
            return YAML;
        }
        return name.endsWith(".json") ? JSON : TOML;
    }
}
