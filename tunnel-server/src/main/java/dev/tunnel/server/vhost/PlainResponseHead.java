package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;

/**
 * Reads the response head almost every app sends on a kept-alive connection, without Netty's
 * decoder: {@code HTTP/1.1}, a final status (200-599 but 101), a body framed by one
 * {@code Content-Length} (or none, for 204, 304 and answers to HEAD), strict CRLF lines. Such a
 * head has one reading only, so it is framed here by a scan of its bytes, and the decoder's
 * per-byte line building, header strings and header map are skipped: they cost a third of the
 * server's Java time per keep-alive request.
 *
 * <p>Anything else is not plain and goes to Netty's decoder, which decides: another version, an
 * interim or 101 status, {@code Transfer-Encoding}, two {@code Content-Length}s or a value that
 * is not all digits, a body delimited by the close, a folded line, a bare CR or LF, a byte that is
 * not a token character in a header name (a space before the colon included) or a control byte
 * in a line, a head longer than {@link Upstream#MAX_RESPONSE_HEAD}, or a head not yet complete.
 * {@code ResponseReaderTest} checks that the scan and the decoder frame every input alike.
 *
 * <p>Threading: one thread at a time; {@link #scan} sets the fields the next scan overwrites.
 */
final class PlainResponseHead {
    private static final byte[] VERSION = {'H', 'T', 'T', 'P', '/', '1', '.', '1', ' '};
    private static final byte[] CONTENT_LENGTH = ascii("content-length");
    private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] CLOSE = ascii("close");
    /** Digits a Content-Length may have here: 18 fit a long. */
    private static final int MAX_LENGTH_DIGITS = 18;
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

    /** Bytes copied for a first look: most heads end within them. */
    private static final int FIRST_COPY = 512;
    /** Longest head scanned here; a longer one goes to the decoder. */
    static final int MAX_SCANNED = 8192;
    private final byte[] scratch = new byte[MAX_SCANNED];

    /** Bytes of the head, status line to empty line. */
    int length;
    /** The status code. */
    int code;
    /** Bytes of body that follow the head. */
    long bodyLength;
    /** The head says {@code Connection: close}. */
    boolean close;
    /** The head has a {@code Content-Length} (a 204, a 304 or an answer to HEAD may have none). */
    boolean hasLength;

    /**
     * Whether {@code buf} holds a whole plain head at {@code from} (then the fields describe it).
     * The head's bytes are copied to a scratch array first, a few hundred at a time (a buffer's
     * own accessors check bounds and liveness on every byte).
     *
     * @param noBody the head answers a HEAD request: whatever it says, no body follows
     */
    boolean scan(ByteBuf buf, int from, boolean noBody) {
        int available = Math.min(buf.writerIndex() - from, MAX_SCANNED);
        for (int n = Math.min(available, FIRST_COPY); ; n = Math.min(available, n * 4)) {
            buf.getBytes(from, scratch, 0, n);
            int found = headEnd(scratch, n);
            if (found > 0) {
                return scan(scratch, found, noBody);
            }
            if (n == available) {
                return false; // incomplete, or longer than a plain head may be
            }
        }
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

    /** Scans the head {@code in[0, end)}, which ends with CRLF CRLF. */
    private boolean scan(byte[] in, int end, boolean noBody) {
        int from = 0;
        if (end < VERSION.length + 5 || !startsWith(in, from, VERSION)) {
            return false;
        }
        int c1 = in[from + 9] - '0';
        int c2 = in[from + 10] - '0';
        int c3 = in[from + 11] - '0';
        if (c1 < 2 || c1 > 5 || c2 < 0 || c2 > 9 || c3 < 0 || c3 > 9) {
            return false;
        }
        int i = from + 12;
        byte after = in[i];
        if (after != ' ' && after != '\r') {
            return false;
        }
        i = lineEnd(in, i, end);
        if (i < 0) {
            return false;
        }
        long contentLength = -1;
        boolean connectionClose = false;
        while (true) {
            if (i + 1 >= end) {
                return false; // incomplete, or over the limit
            }
            if (in[i] == '\r') {
                if (in[i + 1] != '\n') {
                    return false;
                }
                i += 2;
                break;
            }
            int nameStart = i;
            while (i < end && TCHAR[in[i] & 0xff]) {
                i++;
            }
            if (i == nameStart || i >= end || in[i] != ':') {
                return false; // no name, a space before the colon, a non-token byte, or incomplete
            }
            int nameLength = i - nameStart;
            int valueStart = skipSpaces(in, i + 1, end);
            int next = lineEnd(in, valueStart, end);
            if (next < 0) {
                return false;
            }
            int valueEnd = trimSpaces(in, valueStart, next - 2);
            if (is(in, nameStart, nameLength, TRANSFER_ENCODING)) {
                return false;
            } else if (is(in, nameStart, nameLength, CONTENT_LENGTH)) {
                if (contentLength >= 0) {
                    return false;
                }
                contentLength = digits(in, valueStart, valueEnd);
                if (contentLength < 0) {
                    return false;
                }
            } else if (is(in, nameStart, nameLength, CONNECTION)) {
                connectionClose |= hasToken(in, valueStart, valueEnd, CLOSE);
            }
            i = next;
        }
        int status = c1 * 100 + c2 * 10 + c3;
        boolean empty = noBody || status == 204 || status == 304;
        if (!empty && contentLength < 0) {
            return false; // delimited by the close
        }
        length = i - from;
        code = status;
        bodyLength = empty ? 0 : contentLength;
        close = connectionClose;
        hasLength = contentLength >= 0;
        return true;
    }

    /**
     * The index after the CRLF ending the line whose rest starts at {@code i}, or -1 when the line
     * is incomplete or holds a control byte (HTAB aside), a bare CR or a bare LF.
     */
    private static int lineEnd(byte[] in, int i, int end) {
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

    private static int skipSpaces(byte[] in, int i, int end) {
        while (i < end && (in[i] == ' ' || in[i] == '\t')) {
            i++;
        }
        return i;
    }

    /** The end of the value {@code [start, end)} without its trailing spaces. */
    private static int trimSpaces(byte[] in, int start, int end) {
        while (end > start && (in[end - 1] == ' ' || in[end - 1] == '\t')) {
            end--;
        }
        return end;
    }

    /** The decimal number {@code [start, end)}, or -1 when it is empty, too long or not all digits. */
    private static long digits(byte[] in, int start, int end) {
        if (end <= start || end - start > MAX_LENGTH_DIGITS) {
            return -1;
        }
        long n = 0;
        for (int i = start; i < end; i++) {
            int d = in[i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            n = n * 10 + d;
        }
        return n;
    }

    /** Whether the comma-separated list {@code [start, end)} has {@code token} (ASCII case ignored) as one of its elements. */
    private static boolean hasToken(byte[] in, int start, int end, byte[] token) {
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
    private static boolean is(byte[] in, int at, int length, byte[] lower) {
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

    private static boolean startsWith(byte[] in, int at, byte[] prefix) {
        for (int k = 0; k < prefix.length; k++) {
            if (in[at + k] != prefix[k]) {
                return false;
            }
        }
        return true;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }
}
