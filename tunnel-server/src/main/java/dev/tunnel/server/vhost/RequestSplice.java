package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;

/**
 * A request head sent to the app as the bytes it arrived in, with the forwarding headers
 * appended before its empty line, instead of re-encoded from what the decoder made of it: the
 * common request (a {@code GET} with a handful of headers) then costs one copy, not an encoding
 * of every header.
 *
 * <h3>When</h3>
 * Only where the bytes say exactly what the decoder understood and the vhost changes nothing but
 * the added lines, so the app cannot read the request (or a second one behind it) differently
 * from how it was routed: no body at all (no {@code Content-Length}, no {@code Transfer-Encoding}:
 * framing, and the normalising of odd or doubled framing headers, stays with the encoder); no
 * folded header line (obs-fold, which the decoder joins and another parser might read as a header
 * of its own); line ends all CRLF (the decoder's strict parsing); none of the forwarding headers
 * already present (their chains and replacements are the encoder path's); no {@code Connection:
 * close} to take off ({@link Exchange#dispatched}); the request line as it came (a target that
 * routing changed, {@link RequestTarget#applyTo}, changed the Host with it or is re-encoded
 * anyway); and no {@code hostHeaderRewrite} or {@code requestHeaders.set} for the route. Anything
 * else returns null: re-encode.
 *
 * <p>Threading: stateless.
 */
final class RequestSplice {
    private static final byte[] CRLF = {'\r', '\n'};

    private RequestSplice() {
    }

    /**
     * The head to send, or null when it must be re-encoded instead.
     *
     * @param raw   the head's bytes as they arrived ({@link RequestDecoder.HeadBytes}); not released here
     * @param lines the forwarding lines for its Host ({@link ForwardingLines})
     */
    static ByteBuf build(ByteBufAllocator alloc, ByteBuf raw, HttpRequest request, HttpRoute route,
                         ForwardingLines lines) {
        HttpHeaders h = request.headers();
        if (route.rewritesRequests()
                || h.contains(HttpHeaderNames.CONTENT_LENGTH) || h.contains(HttpHeaderNames.TRANSFER_ENCODING)
                || h.contains(RequestTarget.X_FORWARDED_FOR) || h.contains(RequestTarget.X_FORWARDED_HOST)
                || h.contains(RequestTarget.X_FORWARDED_PROTO) || h.contains(RequestTarget.X_REAL_IP)
                || h.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)
                || !plain(raw) || !sentAsItCame(raw, request)) {
            return null;
        }
        byte[] added = lines.of(h.get(HttpHeaderNames.HOST));
        int length = raw.readableBytes() - 2; // up to the CRLF ending the last header line
        ByteBuf out = alloc.buffer(length + added.length + 2);
        out.writeBytes(raw, raw.readerIndex(), length);
        return out.writeBytes(added).writeBytes(CRLF);
    }

    /**
     * The bytes of a head the scan read ({@link PlainRequest}: plain by construction, so only the
     * route can ask for the encoder instead) with its forwarding lines and empty line added; null
     * when the route rewrites requests. The bytes pass to the caller; {@code head} is not released.
     */
    static ByteBuf plain(PlainRequest head, HttpRoute route, ForwardingLines lines) {
        if (route.rewritesRequests()) {
            return null;
        }
        return head.content().writeBytes(lines.of(head.host())).writeBytes(CRLF).retain();
    }

    /**
     * Whether the head's bytes start with the request's method and target as they are now,
     * each followed by one space: routing left the target as it came.
     */
    static boolean sentAsItCame(ByteBuf raw, HttpRequest request) {
        String method = request.method().name();
        String uri = request.uri();
        int at = raw.readerIndex();
        if (raw.readableBytes() < method.length() + uri.length() + 2) {
            return false;
        }
        for (int k = 0; k < method.length(); k++) {
            if (raw.getByte(at++) != method.charAt(k)) {
                return false;
            }
        }
        if (raw.getByte(at++) != ' ') {
            return false;
        }
        for (int k = 0; k < uri.length(); k++) {
            if ((raw.getByte(at++) & 0xff) != uri.charAt(k)) {
                return false;
            }
        }
        return raw.getByte(at) == ' ';
    }

    /** Ends with an empty line, and no line starts with a space or a tab (a folded header). */
    static boolean plain(ByteBuf raw) {
        int end = raw.writerIndex();
        int start = raw.readerIndex();
        if (end - start < 4 || raw.getInt(end - 4) != 0x0d0a0d0a) {
            return false;
        }
        for (int i = start; i < end - 2; i++) {
            if (raw.getByte(i) == '\n') {
                byte next = raw.getByte(i + 1);
                if (next == ' ' || next == '\t') {
                    return false;
                }
            }
        }
        return true;
    }
}
