package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The byte tests the plain-head scans share ({@link PlainRequestHead}, {@link PlainResponseHead}):
 * token characters, strict CRLF lines without control bytes, optional whitespace, and names
 * compared with ASCII case ignored. Each works on a scratch copy of the head, {@code in[i, end)}.
 *
 * <p>Threading: stateless.
 */
final class HeadScan {
    private static final boolean[] TCHAR = new boolean[256];

    static {
        for (int c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (int c = 'A'; c <= 'Z'; c++) {
            TCHAR[c] = true;
            TCHAR[c + 32] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
    }

    /** Longest head a scan looks at; a longer one goes to Netty's decoder. */
    static final int MAX_SCANNED = 8192;
    /** Bytes copied for a first look: most heads end within them. */
    private static final int FIRST_COPY = 512;

    private HeadScan() {
    }

    /**
     * Copies the head that starts at {@code from} in {@code buf} into {@code scratch} (at least
     * {@link #MAX_SCANNED} long), a few hundred bytes at a time (a buffer's own accessors check
     * bounds and liveness on every byte), and returns its length up to its empty line; -1 when it
     * is incomplete or longer than {@link #MAX_SCANNED}.
     */
    static int copyHead(ByteBuf buf, int from, byte[] scratch) {
        int available = Math.min(buf.writerIndex() - from, MAX_SCANNED);
        for (int n = Math.min(available, FIRST_COPY); ; n = Math.min(available, n * 4)) {
            buf.getBytes(from, scratch, 0, n);
            int found = headEnd(scratch, n);
            if (found > 0 || n == available) {
                return found;
            }
        }
    }

    /** Whether {@code b} is a token character (RFC 9110 tchar), as a header name is made of. */
    static boolean tchar(byte b) {
        return TCHAR[b & 0xff];
    }

    /** The length of the head in {@code in[0, n)} (up to its empty line), or -1 when it does not end there. */
    private static int headEnd(byte[] in, int n) {
        for (int i = 3; i < n; i++) {
            if (in[i] == '\n' && in[i - 1] == '\r' && in[i - 2] == '\n' && in[i - 3] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    /**
     * The index after the CRLF ending the line whose rest starts at {@code i}, or -1 when the line
     * is incomplete or holds a control byte (HTAB aside), a bare CR or a bare LF.
     */
    static int lineEnd(byte[] in, int i, int end) {
        for (; i < end; i++) {
            int b = in[i] & 0xff;
            if (b == '\r') {
                return i + 1 < end && in[i + 1] == '\n' ? i + 2 : -1;
            }
            if ((b < 0x20 && b != '\t') || b == 0x7f) {
                return -1;
            }
        }
        return -1;
    }

    static int skipSpaces(byte[] in, int i, int end) {
        while (i < end && (in[i] == ' ' || in[i] == '\t')) {
            i++;
        }
        return i;
    }

    /** The end of the value {@code [start, end)} without its trailing spaces. */
    static int trimSpaces(byte[] in, int start, int end) {
        while (end > start && (in[end - 1] == ' ' || in[end - 1] == '\t')) {
            end--;
        }
        return end;
    }

    /** Whether the comma-separated list {@code [start, end)} has {@code token} (ASCII case ignored) as one of its elements. */
    static boolean hasToken(byte[] in, int start, int end, byte[] token) {
        int i = start;
        while (i < end) {
            int elementEnd = i;
            while (elementEnd < end && in[elementEnd] != ',') {
                elementEnd++;
            }
            int s = skipSpaces(in, i, elementEnd);
            int e = trimSpaces(in, s, elementEnd);
            if (is(in, s, e - s, token)) {
                return true;
            }
            i = elementEnd + 1;
        }
        return false;
    }

    /** Whether the {@code length} bytes at {@code at} are {@code lower} with ASCII case ignored. */
    static boolean is(byte[] in, int at, int length, byte[] lower) {
        if (length != lower.length) {
            return false;
        }
        for (int k = 0; k < length; k++) {
            int b = in[at + k];
            if (b >= 'A' && b <= 'Z') {
                b += 32;
            }
            if (b != lower[k]) {
                return false;
            }
        }
        return true;
    }

    static boolean startsWith(byte[] in, int at, byte[] prefix) {
        for (int k = 0; k < prefix.length; k++) {
            if (in[at + k] != prefix[k]) {
                return false;
            }
        }
        return true;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A cursor over the header lines of a scanned head: {@link #read} takes the line at an index
     * and says where its name and its value (spaces trimmed) lie and where the next line starts.
     * One per scanner, reused for every line.
     */
    static final class HeaderLine {
        /** {@link #read}: a header line was read. */
        static final int HEADER = 1;
        /** {@link #read}: the empty line ending the head was read. */
        static final int END = 0;
        /** {@link #read}: not a strict line (see {@link #read}). */
        static final int NOT_STRICT = -1;

        int nameStart;
        int nameLength;
        int valueStart;
        int valueEnd;
        /** Where the line after it starts. */
        int next;

        /**
         * Reads the line at {@code i} in {@code in[0, end)}: {@link #HEADER}, {@link #END}, or
         * {@link #NOT_STRICT} for no name (a folded line), a space before the colon, a non-token
         * byte in the name, a control byte, a bare CR or LF, or a line that does not end by
         * {@code end}.
         */
        int read(byte[] in, int i, int end) {
            if (i + 1 >= end) {
                return NOT_STRICT;
            }
            if (in[i] == '\r') {
                next = i + 2;
                return in[i + 1] == '\n' ? END : NOT_STRICT;
            }
            int start = i;
            while (i < end && tchar(in[i])) {
                i++;
            }
            if (i == start || i >= end || in[i] != ':') {
                return NOT_STRICT;
            }
            int value = skipSpaces(in, i + 1, end);
            int lineEnd = lineEnd(in, value, end);
            if (lineEnd < 0) {
                return NOT_STRICT;
            }
            nameStart = start;
            nameLength = i - start;
            valueStart = value;
            valueEnd = trimSpaces(in, value, lineEnd - 2);
            next = lineEnd;
            return HEADER;
        }

        /** Whether the name is {@code lower}, ASCII case ignored. */
        boolean named(byte[] in, byte[] lower) {
            return is(in, nameStart, nameLength, lower);
        }
    }
}
