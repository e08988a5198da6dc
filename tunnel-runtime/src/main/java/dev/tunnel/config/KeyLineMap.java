package dev.tunnel.config;

import java.util.HashMap;
import java.util.Map;

/**
 * Key path lines filled by a parser that knows them as it reads (YAML and JSON, whose parsers
 * carry token locations). Paths are written as {@link KeyLocator} writes them:
 * {@code proxies[0].transport.useEncryption}. Filled by one thread, then only read.
 */
public final class KeyLineMap implements KeyLines {

    private final Map<String, Integer> lines = new HashMap<>();

    /** Records the first line seen for {@code keyPath}. */
    public void put(String keyPath, int line) {
        lines.putIfAbsent(keyPath, line);
    }

    @Override
    public int lineOf(String keyPath) {
        return lookup(lines, keyPath);
    }

    /** The line of {@code keyPath} in {@code lines}, or else of its nearest listed parent; 0 if none is. */
    static int lookup(Map<String, Integer> lines, String keyPath) {
        String p = keyPath;
        while (!p.isEmpty()) {
            Integer l = lines.get(p);
            if (l != null) {
                return l;
            }
            p = KeyLocator.parentOf(p);
        }
        return 0;
    }
}
