package dev.tunnel.client.plugin;

/**
 * A single {@code Range: bytes=...} request resolved against a file length.
 *
 * @param start        first byte, inclusive
 * @param endInclusive last byte, inclusive
 */
record ByteRange(long start, long endInclusive) {

    /** The range lies wholly past the end of the file: answer 416. */
    static final ByteRange UNSATISFIABLE = new ByteRange(-1, -1);

    long length() {
        return endInclusive - start + 1;
    }

    /**
     * Parses {@code header} for a file of {@code length} bytes. Returns {@code null} when the whole
     * file should be sent: no header, a unit other than bytes, a malformed value, or several ranges
     * (allowed by RFC 9110, which lets a server ignore Range).
     */
    static ByteRange parse(String header, long length) {
        if (header == null || !header.regionMatches(true, 0, "bytes=", 0, 6)) {
            return null;
        }
        String spec = header.substring(6).trim();
        int dash = spec.indexOf('-');
        if (dash < 0 || spec.indexOf(',') >= 0) {
            return null;
        }
        try {
            String first = spec.substring(0, dash).trim();
            String last = spec.substring(dash + 1).trim();
            if (first.isEmpty()) {
                long suffix = parseDigits(last);
                if (suffix == 0 || length == 0) {
                    return UNSATISFIABLE;
                }
                return new ByteRange(Math.max(0, length - suffix), length - 1);
            }
            long start = parseDigits(first);
            long end = last.isEmpty() ? Long.MAX_VALUE : parseDigits(last);
            if (end < start) {
                return null; // Invalid spec: ignored.
            }
            if (start >= length) {
                return UNSATISFIABLE;
            }
            return new ByteRange(start, Math.min(end, length - 1));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static long parseDigits(String text) {
        if (text.isEmpty() || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new NumberFormatException(text);
        }
        return Long.parseLong(text); // Overflow also throws NumberFormatException.
    }
}
