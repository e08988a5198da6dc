package dev.tunnel.protocol;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Named values a control message carries for whoever understands them: a proxy type's settings
 * in {@code NEW_PROXY} ({@code remotePort}, {@code customDomains[0]}, {@code secretKey}...), and
 * extensions of {@code LOGIN}, {@code LOGIN_RESULT} and {@code NEW_PROXY_RESULT}. A new setting is
 * a new key, never a new positional field, so adding one breaks no peer; a receiver ignores keys
 * it does not know (a peer that needs a key understood asks for a capability first, see
 * {@link Capabilities}).
 *
 * <p>Keys are the config key names of frp where one exists. Values are strings: numbers in
 * decimal, booleans {@code true}/{@code false}, a list as {@code key[0]}, {@code key[1]}... and a
 * map as {@code key.name}. On the wire: a u16 count, then each key and value as a string
 * ({@link ControlCodec}). Immutable; iteration follows insertion order.
 */
public final class Options {
    /** Most entries one message may carry. */
    public static final int MAX_ENTRIES = 512;
    /** Longest key, in characters. */
    public static final int MAX_KEY = 256;

    public static final Options EMPTY = new Options(Map.of());

    private final Map<String, String> values;

    private Options(Map<String, String> values) {
        this.values = values;
    }

    /** A builder for a new set of options. */
    public static Builder builder() {
        return new Builder();
    }

    /** Options holding one key. */
    public static Options of(String key, String value) {
        return builder().put(key, value).build();
    }

    /** Every entry, in insertion order (unmodifiable). */
    public Map<String, String> asMap() {
        return values;
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    public int size() {
        return values.size();
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    /** The value of {@code key}, or {@code fallback} when absent. */
    public String string(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }

    /**
     * The integer value of {@code key}, or {@code fallback} when absent.
     *
     * @throws ProtocolException when the value is not a decimal integer (the peer sent garbage)
     */
    public int integer(String key, int fallback) {
        String v = values.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new ProtocolException("option " + key + " = \"" + v + "\" (expected: an integer)");
        }
    }

    /**
     * The boolean value of {@code key}, or {@code fallback} when absent.
     *
     * @throws ProtocolException when the value is neither {@code true} nor {@code false}
     */
    public boolean bool(String key, boolean fallback) {
        String v = values.get(key);
        if (v == null) {
            return fallback;
        }
        if (v.equals("true") || v.equals("false")) {
            return v.equals("true");
        }
        throw new ProtocolException("option " + key + " = \"" + v + "\" (expected: true or false)");
    }

    /** The list stored as {@code key[0]}, {@code key[1]}, ... (stops at the first gap); empty when absent. */
    public List<String> list(String key) {
        List<String> out = new ArrayList<>();
        for (int i = 0; ; i++) {
            String v = values.get(key + '[' + i + ']');
            if (v == null) {
                return Collections.unmodifiableList(out);
            }
            out.add(v);
        }
    }

    /** The map stored as {@code key.name}; empty when absent. Insertion order. */
    public Map<String, String> map(String key) {
        String prefix = key + '.';
        Map<String, String> out = new LinkedHashMap<>();
        values.forEach((k, v) -> {
            if (k.startsWith(prefix) && k.length() > prefix.length()) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return Collections.unmodifiableMap(out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Options other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("{");
        values.forEach((k, v) -> {
            if (out.length() > 1) {
                out.append(", ");
            }
            out.append(k).append('=').append(isSecret(k) ? "***" : v);
        });
        return out.append('}').toString();
    }

    /** Keys whose values never appear in logs ({@code httpPassword}, {@code secretKey}, tokens). */
    private static boolean isSecret(String key) {
        String k = key.toLowerCase(java.util.Locale.ROOT);
        return k.contains("password") || k.contains("secret") || k.contains("token");
    }

    /** Builds {@link Options}; a key put twice keeps its first position and its last value. */
    public static final class Builder {
        private final Map<String, String> values = new LinkedHashMap<>();

        private Builder() {
        }

        public Builder put(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            if (key.isEmpty() || key.length() > MAX_KEY) {
                throw new IllegalArgumentException("option key \"" + key + "\" (expected: 1-" + MAX_KEY + " characters)");
            }
            values.put(key, value);
            if (values.size() > MAX_ENTRIES) {
                throw new IllegalArgumentException("more than " + MAX_ENTRIES + " options");
            }
            return this;
        }

        public Builder put(String key, int value) {
            return put(key, Integer.toString(value));
        }

        public Builder put(String key, boolean value) {
            return put(key, Boolean.toString(value));
        }

        /** Puts {@code key[0]}, {@code key[1]}, ...; nothing for an empty or null list. */
        public Builder putList(String key, List<String> list) {
            if (list != null) {
                for (int i = 0; i < list.size(); i++) {
                    put(key + '[' + i + ']', list.get(i));
                }
            }
            return this;
        }

        /** Puts {@code key.name} for each entry; nothing for an empty or null map. */
        public Builder putMap(String key, Map<String, String> map) {
            if (map != null) {
                map.forEach((k, v) -> put(key + '.' + k, v));
            }
            return this;
        }

        /** Whether {@code key} was put. */
        public boolean has(String key) {
            return values.containsKey(key);
        }

        /** Puts every entry of {@code other}. */
        public Builder putAll(Options other) {
            other.values.forEach(this::put);
            return this;
        }

        public Options build() {
            return values.isEmpty() ? EMPTY : new Options(Collections.unmodifiableMap(new LinkedHashMap<>(values)));
        }
    }
}
