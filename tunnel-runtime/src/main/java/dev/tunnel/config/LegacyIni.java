package dev.tunnel.config;

import java.util.Locale;

/**
 * Recognises frp's legacy INI format (before v0.52), which tunnel does not read: a file named
 * {@code *.ini}, or one whose first line that is neither blank nor a comment is {@code [common]}
 * (the section every frps.ini and frpc.ini starts with). Without this check such a file would
 * fail as a TOML syntax error that tells the user nothing.
 */
public final class LegacyIni {

    /** The error for an INI file. */
    public static final String MESSAGE = "INI is not supported; convert it to TOML (the format of frpc/frps 0.52+, "
            + "which their `verify -c FILE` checks): docs/config.md \"Legacy INI\" lists how the INI keys map";

    private LegacyIni() {
    }

    /** True when {@code text}, named {@code fileName}, is a legacy INI config. */
    public static boolean is(String fileName, String text) {
        if (fileName.toLowerCase(Locale.ROOT).endsWith(".ini")) {
            return true;
        }
        for (String line : text.lines().limit(10_000).toList()) {
            String s = line.strip();
            if (!s.isEmpty() && !s.startsWith("#") && !s.startsWith(";")) {
                return s.replace(" ", "").equals("[common]");
            }
        }
        return false;
    }
}
