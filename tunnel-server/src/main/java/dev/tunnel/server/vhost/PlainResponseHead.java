package dev.tunnel.server.vhost;

import static dev.tunnel.server.vhost.HeadScan.ascii;
import static dev.tunnel.server.vhost.HeadScan.hasToken;
import static dev.tunnel.server.vhost.HeadScan.lineEnd;
import static dev.tunnel.server.vhost.HeadScan.startsWith;

import dev.tunnel.server.vhost.HeadScan.HeaderLine;
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

    /** Longest head scanned here; a longer one goes to the decoder. */
    static final int MAX_SCANNED = HeadScan.MAX_SCANNED;
    private final byte[] scratch = new byte[MAX_SCANNED];
    private final HeaderLine line = new HeaderLine();

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
        int found = HeadScan.copyHead(buf, from, scratch);
        return found > 0 && scan(scratch, found, noBody);
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
        for (int read; (read = line.read(in, i, end)) != HeaderLine.END; i = line.next) {
            if (read == HeaderLine.NOT_STRICT || line.named(in, TRANSFER_ENCODING)) {
                return false;
            } else if (line.named(in, CONTENT_LENGTH)) {
                if (contentLength >= 0) {
                    return false;
                }
                contentLength = digits(in, line.valueStart, line.valueEnd);
                if (contentLength < 0) {
                    return false;
                }
            } else if (line.named(in, CONNECTION)) {
                connectionClose |= hasToken(in, line.valueStart, line.valueEnd, CLOSE);
            }
        }
        i = line.next;
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
}
