package dev.tunnel.config;

import java.util.Set;

/**
 * Keys that frp understands but tunnel does not implement yet, so a user gets "not supported
 * yet" instead of "unknown key". Entries are dotted paths without array indexes
 * ({@code proxies.transport}); an entry also covers every key below it.
 */
public final class UnsupportedKeys {

    private final Set<String> keys;

    private UnsupportedKeys(Set<String> keys) {
        this.keys = keys;
    }

    public static UnsupportedKeys of(String... keys) {
        return new UnsupportedKeys(Set.of(keys));
    }

    /** True when {@code keyPath} (array indexes allowed, e.g. {@code proxies[2].transport.useEncryption}) or a parent is listed. */
    public boolean contains(String keyPath) {
        String p = keyPath.replaceAll("\\[\\d+]", "");
        while (!p.isEmpty()) {
            if (keys.contains(p)) {
                return true;
            }
            int dot = p.lastIndexOf('.');
            p = dot < 0 ? "" : p.substring(0, dot);
        }
        return false;
    }

    /** The message for a key frp has and tunnel lacks. */
    public static String message(String keyPath) {
        return '"' + keyPath + "\" is an frp setting that tunnel does not support yet";
    }
}
