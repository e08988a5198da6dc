package dev.tunnel.client.config;

import dev.tunnel.config.ValueChecks;
import java.util.Map;

/**
 * Limits on the free-form maps sent to the server ({@code metadatas.*}, {@code annotations.*})
 * and on {@code clientID}: they travel in one control message and the server keeps them for its
 * API, so they are bounded (frp bounds annotations to 256 KiB in all; here each map to 64
 * entries and 8 KiB of UTF-8, so a proxy's whole NEW_PROXY stays well inside a 64 KiB control
 * frame).
 */
final class Metadata {
    static final int MAX_ENTRIES = 64;
    static final int MAX_NAME = 128;
    static final int MAX_VALUE = 512;
    static final int MAX_BYTES = 8192;

    private Metadata() {
    }

    static void check(String key, Map<String, String> map, ValueChecks checks) {
        checks.check(map.size() <= MAX_ENTRIES, key, map.size() + " entries (expected: at most " + MAX_ENTRIES + ")");
        long bytes = map.entrySet().stream().mapToLong(e -> utf8(e.getKey()) + utf8(e.getValue())).sum();
        checks.check(bytes <= MAX_BYTES, key, bytes + " bytes of names and values (expected: at most " + MAX_BYTES + ")");
        for (Map.Entry<String, String> e : map.entrySet()) {
            checks.check(!e.getKey().isEmpty() && e.getKey().length() <= MAX_NAME, key + "." + e.getKey(),
                    "name of " + e.getKey().length() + " characters (expected: 1-" + MAX_NAME + ")");
            checks.check(e.getValue().length() <= MAX_VALUE, key + "." + e.getKey(),
                    "value of " + e.getValue().length() + " characters (expected: at most " + MAX_VALUE + ")");
        }
    }

    private static int utf8(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    private static final java.util.regex.Pattern IPV4 =
            java.util.regex.Pattern.compile("((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");

    /** An IPv4 or IPv6 literal; never a name (nothing is looked up: verify stays offline and quick). */
    static boolean isIpLiteral(String address) {
        if (IPV4.matcher(address).matches()) {
            return true;
        }
        if (!address.contains(":") || !address.matches("[0-9A-Fa-f:.%a-zA-Z]+")) {
            return false;
        }
        try {
            // a string with ':' is parsed as an IPv6 literal, never resolved
            java.net.InetAddress.getByName(address);
            return true;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}
