package dev.tunnel.server.vhost;

import static dev.tunnel.server.vhost.HeadScan.ascii;
import static dev.tunnel.server.vhost.HeadScan.is;
import static dev.tunnel.server.vhost.HeadScan.lineEnd;
import static dev.tunnel.server.vhost.HeadScan.startsWith;

import dev.tunnel.server.vhost.HeadScan.HeaderLine;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the request head that browsers, curl and load generators send for almost every request,
 * without Netty's decoder: an origin-form {@code GET} (or another common method) over
 * {@code HTTP/1.1} with one {@code Host}, no body and nothing the vhost must rewrite. Such a head
 * has one reading only, so routing can take the host, path and credentials from a scan of its
 * bytes, and the head goes to the app as those bytes plus the forwarding lines
 * ({@link PlainRequest}). The decoder's header strings and header map, the largest share of the
 * vhost's allocation per request, are skipped.
 *
 * <p>Anything else is not plain and goes to Netty's decoder, the parser of record, which decides:
 * another version or an absolute or authority target; a method other than GET, HEAD, POST, PUT,
 * DELETE, OPTIONS, PATCH or TRACE; a byte outside visible ASCII or a {@code #} in the target, or
 * a path that is not already in its normalized form ({@link RequestPath}); a body or its
 * framing ({@code Content-Length}, {@code Transfer-Encoding}); {@code Upgrade}, {@code Expect}, a
 * {@code Connection} other than {@code keep-alive}; a missing, empty or second {@code Host}, a
 * second {@code Authorization}; forwarding headers the visitor brought (their chains are the
 * decoder path's); a folded line, a bare CR or LF, a control byte, a non-token byte in a name or
 * a space before its colon; bytes before the request line; a head longer than
 * {@link HeadScan#MAX_SCANNED} or not yet complete. {@code PlainRequestHeadTest} holds the two
 * paths to sending every input to the app alike.
 *
 * <p>Threading: one connection's event loop; {@link #scan} sets the fields the next scan
 * overwrites.
 */
final class PlainRequestHead {
    private static final byte[] VERSION = ascii(" HTTP/1.1\r\n");
    private static final HttpMethod[] METHODS = {HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.PUT,
        HttpMethod.DELETE, HttpMethod.OPTIONS, HttpMethod.PATCH, HttpMethod.TRACE};
    private static final byte[][] METHOD_NAMES = Arrays.stream(METHODS).map(m -> ascii(m.name())).toArray(byte[][]::new);
    private static final byte[] HOST = ascii("host");
    private static final byte[] AUTHORIZATION = ascii("authorization");
    private static final byte[] CONNECTION = ascii("connection");
    private static final byte[] KEEP_ALIVE = ascii("keep-alive");
    /** Names whose presence makes a head not plain (matched by length first). */
    private static final byte[][] NOT_PLAIN = {ascii("content-length"), ascii("transfer-encoding"), ascii("upgrade"),
        ascii("expect"), ascii(RequestTarget.X_FORWARDED_FOR.toLowerCase()), ascii(RequestTarget.X_FORWARDED_HOST.toLowerCase()),
        ascii(RequestTarget.X_FORWARDED_PROTO.toLowerCase()), ascii(RequestTarget.X_REAL_IP.toLowerCase())};
    /** Room left behind a head's bytes for the forwarding lines, so that appending them rarely grows the buffer. */
    private static final int LINES_ROOM = 192;

    private final byte[] scratch = new byte[HeadScan.MAX_SCANNED];
    private final HeaderLine line = new HeaderLine();
    /** The previous head's Host value and its bytes: successive requests of a connection mostly repeat it. */
    private byte[] lastHostBytes = new byte[0];
    private String lastHost;
    private String lastRoutingHost;

    /** Bytes of the head, request line to empty line. */
    int length;
    private HttpMethod method;
    /** The scanned head's path, normal ({@link RequestPath}). */
    private String path;
    private int hostStart;
    private int hostEnd;
    private int authStart;
    private int authEnd;

    /** Whether {@code buf} holds a whole plain head at {@code from} (then {@link #request} makes it a message). */
    boolean scan(ByteBuf buf, int from) {
        int found = HeadScan.copyHead(buf, from, scratch);
        return found > 0 && scan(scratch, found);
    }

    /** The head just scanned, its bytes copied into a buffer with room for the forwarding lines. */
    PlainRequest request(ByteBufAllocator alloc) {
        ByteBuf bytes = alloc.buffer(length + LINES_ROOM);
        bytes.writeBytes(scratch, 0, length - 2); // up to the CRLF ending the last header line
        String authorization = authStart < 0 ? null
                : new String(scratch, authStart, authEnd - authStart, StandardCharsets.ISO_8859_1);
        String host = host();
        return new PlainRequest(bytes, method, host, lastRoutingHost, path, authorization);
    }

    /** The Host value, the previous head's string when the bytes are the same. */
    private String host() {
        int n = hostEnd - hostStart;
        if (lastHost == null || !Arrays.equals(scratch, hostStart, hostEnd, lastHostBytes, 0, lastHostBytes.length)) {
            lastHostBytes = Arrays.copyOfRange(scratch, hostStart, hostEnd);
            lastHost = new String(scratch, hostStart, n, StandardCharsets.ISO_8859_1);
            lastRoutingHost = HostNames.fromHostHeader(lastHost);
        }
        return lastHost;
    }

    /** Scans the head {@code in[0, end)}, which ends with CRLF CRLF. */
    private boolean scan(byte[] in, int end) {
        HttpMethod m = method(in, end);
        if (m == null) {
            return false;
        }
        int i = m.name().length() + 1;
        if (in[i] != '/') {
            return false; // absolute, authority or asterisk form: the decoder's
        }
        int query = -1;
        while (i < end && in[i] > ' ' && in[i] < 0x7f && in[i] != '#') {
            if (query < 0 && in[i] == '?') {
                query = i;
            }
            i++;
        }
        if (i + VERSION.length > end || !startsWith(in, i, VERSION)) {
            return false;
        }
        int targetEnd = i;
        i += VERSION.length;
        int host = -1;
        int hostTo = -1;
        int auth = -1;
        int authTo = -1;
        for (int read; (read = line.read(in, i, end)) != HeaderLine.END; i = line.next) {
            if (read == HeaderLine.NOT_STRICT) {
                return false;
            } else if (line.named(in, HOST)) {
                if (host >= 0 || line.valueEnd == line.valueStart) {
                    return false;
                }
                host = line.valueStart;
                hostTo = line.valueEnd;
            } else if (line.named(in, AUTHORIZATION)) {
                if (auth >= 0) {
                    return false;
                }
                auth = line.valueStart;
                authTo = line.valueEnd;
            } else if (line.named(in, CONNECTION)) {
                if (!is(in, line.valueStart, line.valueEnd - line.valueStart, KEEP_ALIVE)) {
                    return false;
                }
            } else if (notPlain(in, line.nameStart, line.nameLength)) {
                return false;
            }
        }
        i = line.next;
        if (host < 0) {
            return false;
        }
        int pathStart = m.name().length() + 1;
        String p = new String(in, pathStart, (query < 0 ? targetEnd : query) - pathStart, StandardCharsets.ISO_8859_1);
        if (RequestPath.normalize(p) != p) {
            return false; // the decoder's path refuses it, or sends the app its normalized form
        }
        length = i;
        method = m;
        this.path = p;
        hostStart = host;
        hostEnd = hostTo;
        authStart = auth;
        authEnd = authTo;
        return true;
    }

    /** The method the request line starts with (followed by a space), or null when it is none of {@link #METHODS}. */
    private static HttpMethod method(byte[] in, int end) {
        for (int k = 0; k < METHODS.length; k++) {
            byte[] name = METHOD_NAMES[k];
            if (name.length + 2 < end && startsWith(in, 0, name) && in[name.length] == ' ') {
                return METHODS[k];
            }
        }
        return null;
    }

    private static boolean notPlain(byte[] in, int at, int length) {
        for (byte[] name : NOT_PLAIN) {
            if (is(in, at, length, name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The request a plain head's bytes ({@link PlainRequest#content}, without its empty line)
     * stand for, as Netty's decoder would have made it: for a route that rewrites the head, which
     * goes through the encoder. The bytes are known plain, so each line is a name, a colon and a
     * value with its spaces trimmed.
     */
    static HttpRequest decode(ByteBuf head, HttpMethod method) {
        byte[] in = new byte[head.readableBytes()];
        head.getBytes(head.readerIndex(), in);
        int lineEnd = lineEnd(in, 0, in.length);
        int targetStart = method.name().length() + 1;
        String uri = new String(in, targetStart, lineEnd - VERSION.length - targetStart, StandardCharsets.ISO_8859_1);
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, uri);
        HeaderLine line = new HeaderLine();
        for (int i = lineEnd; i < in.length; i = line.next) {
            line.read(in, i, in.length);
            request.headers().add(new String(in, line.nameStart, line.nameLength, StandardCharsets.ISO_8859_1),
                    new String(in, line.valueStart, line.valueEnd - line.valueStart, StandardCharsets.ISO_8859_1));
        }
        return request;
    }
}
