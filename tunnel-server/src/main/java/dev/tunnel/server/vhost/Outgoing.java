package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;

/**
 * A routed request head on its way to the app: its bytes with the forwarding lines added
 * ({@code spliced}; owned) or the request to encode, and what the exchange must know of it.
 *
 * <p>Threading: the public connection's event loop ({@link HttpVhostHandler}).
 *
 * @param reusable    the connection to the app stays reusable after it ({@link Exchange#reusableAfter})
 * @param headRequest a HEAD request: its answer has no body
 * @param retryable   it may be sent again on a new connection ({@link #retryable})
 * @param whole       the head is the whole request ({@link PlainRequest}): no body part, not
 *                    even an empty last one, follows it
 */
record Outgoing(HttpRequest encode, ByteBuf spliced, boolean headRequest, boolean reusable,
                boolean retryable, boolean whole) {
    /**
     * Whether {@code request} may be sent again on a new connection when the reused one it went on
     * fails before any byte of an answer (the app closed it while it was idle), as Go's
     * {@code http.Transport} does: an idempotent method, and no body (nothing of it is kept).
     */
    static boolean retryable(HttpRequest request) {
        return retryable(request.method()) && !HttpUtil.isTransferEncodingChunked(request)
                && HttpUtil.getContentLength(request, 0L) == 0;
    }

    static boolean retryable(HttpMethod m) {
        return HttpMethod.GET.equals(m) || HttpMethod.HEAD.equals(m) || HttpMethod.OPTIONS.equals(m)
                || HttpMethod.TRACE.equals(m);
    }

    /**
     * The same head to send once more: the {@code length} bytes at {@code from} (where they
     * lay when first sent) as a new view of their own, or the request itself; this head's
     * reference is not taken.
     */
    Outgoing again(int from, int length) {
        return new Outgoing(encode, spliced == null ? null : spliced.retainedSlice(from, length), headRequest,
                reusable, retryable, whole);
    }

    void release() {
        ReferenceCountUtil.release(spliced);
    }
}
