package dev.tunnel.bench;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@code --key value} command-line options, with errors that name the option and what is allowed. */
final class Args {
    private final Map<String, String> values = new HashMap<>();
    private final List<String> positional = new ArrayList<>();

    Args(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("--")) {
                if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                    values.put(a.substring(2), "true");
                } else {
                    values.put(a.substring(2), args[++i]);
                }
            } else {
                positional.add(a);
            }
        }
    }

    List<String> positional() {
        return positional;
    }

    boolean has(String key) {
        return values.containsKey(key);
    }

    String string(String key, String def) {
        return values.getOrDefault(key, def);
    }

    String required(String key) {
        String v = values.get(key);
        if (v == null) {
            throw new IllegalArgumentException("--" + key + " is required");
        }
        return v;
    }

    long number(String key, long def, long min, long max) {
        String v = values.get(key);
        if (v == null) {
            return def;
        }
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + key + ": " + v + " (expected: a number " + min + "-" + max + ")");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("--" + key + ": " + v + " (expected: " + min + "-" + max + ")");
        }
        return n;
    }

    /** {@code host:port}. */
    static InetSocketAddress address(String key, String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("--" + key + ": " + value + " (expected: host:port)");
        }
        int port;
        try {
            port = Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + key + ": " + value + " (expected: host:port)");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("--" + key + ": port " + port + " (expected: 1-65535)");
        }
        return new InetSocketAddress(value.substring(0, colon), port);
    }

    List<InetSocketAddress> addresses(String key, String def) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String part : string(key, def).split(",")) {
            out.add(address(key, part.trim()));
        }
        return out;
    }
}
