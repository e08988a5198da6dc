package dev.tunnel.protocol.relay;

/**
 * frp's bandwidth quantities ({@code transport.bandwidthLimit}): a decimal number followed by
 * {@code KB} (1024 bytes) or {@code MB} (1048576 bytes) per second, e.g. {@code "500KB"},
 * {@code "1.5MB"}. An empty string means no limit.
 */
public final class Bandwidth {
    public static final String MODE_CLIENT = "client";
    public static final String MODE_SERVER = "server";

    private Bandwidth() {
    }

    /**
     * Bytes per second for {@code value}; 0 for an empty value (no limit).
     *
     * @throws IllegalArgumentException naming the value and the expected form
     */
    public static long parse(String value) {
        String s = value == null ? "" : value.strip();
        if (s.isEmpty()) {
            return 0;
        }
        long unit;
        if (s.endsWith("MB")) {
            unit = 1024 * 1024;
        } else if (s.endsWith("KB")) {
            unit = 1024;
        } else {
            throw invalid(value);
        }
        String number = s.substring(0, s.length() - 2);
        double amount;
        try {
            amount = Double.parseDouble(number);
        } catch (NumberFormatException e) {
            throw invalid(value);
        }
        if (!(amount > 0) || Double.isInfinite(amount) || number.chars().anyMatch(c -> c == 'e' || c == 'E')) {
            throw invalid(value);
        }
        long bytes = (long) (amount * unit);
        if (bytes <= 0) {
            throw invalid(value);
        }
        return bytes;
    }

    private static IllegalArgumentException invalid(String value) {
        return new IllegalArgumentException("\"" + value + "\" (expected: a positive number of KB or MB per second,"
                + " e.g. \"500KB\" or \"1MB\")");
    }
}
