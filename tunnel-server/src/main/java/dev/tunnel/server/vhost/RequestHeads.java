package dev.tunnel.server.vhost;

import dev.tunnel.server.inbound.VisitorAddress;
import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;

/**
 * What becomes of each request head of one vhost connection: forwarded to the proxy it routes to
 * ({@link RequestRouting}: Host, path, {@code locations}, auth) as what its app is sent, or
 * answered by the vhost itself (400/414/431, 404, 401). A forwarded head goes as the bytes it
 * came in with the forwarding lines added ({@link RequestSplice}) where nothing else changes,
 * else as the request with the forwarding headers and the route's rewrites
 * ({@code hostHeaderRewrite}, {@code requestHeaders.set}) to encode.
 *
 * <p>Invariant: a head handed in is consumed: its bytes ({@link RequestDecoder.HeadBytes},
 * {@link PlainRequest}) are released here, and whatever is to be sent or written passes to the
 * caller in the {@link Next} returned.
 *
 * <p>Threading: the connection's event loop.
 */
final class RequestHeads {
    /** What to do with a head. */
    sealed interface Next permits Forward, Answer {
    }

    /**
     * Send {@code head} (owned) to {@code route}'s proxy.
     *
     * @param keepAlive the request allows another on the public connection
     */
    record Forward(Outgoing head, Entry<HttpRoute> route, boolean keepAlive) implements Next {
    }

    /**
     * Answer with {@code page} (owned).
     *
     * @param close the connection closes after it: the head could not be parsed or routed, or the
     *              request does not allow another, or has a body (which is not read)
     * @param whole nothing of the request follows its head ({@link PlainRequest}); else the
     *              decoder's empty last part does, and ends the exchange
     */
    record Answer(FullHttpResponse page, boolean close, boolean whole) implements Next {
    }

    private final VhostSettings vhost;
    private final Channel channel;
    private final String proto;
    /** The forwarding lines of this connection's visitor; made with the first routed request. */
    private ForwardingLines forwardingLines;

    /** @param proto what {@code X-Forwarded-Proto} says: "http" */
    RequestHeads(VhostSettings vhost, Channel channel, String proto) {
        this.vhost = vhost;
        this.channel = channel;
        this.proto = proto;
    }

    /**
     * A head Netty's decoder read.
     *
     * @param raw the bytes it came in, or null; released here
     */
    Next of(HttpRequest request, RequestDecoder.HeadBytes raw) {
        try {
            return decoded(request, raw);
        } finally {
            ReferenceCountUtil.release(raw);
        }
    }

    private Next decoded(HttpRequest request, RequestDecoder.HeadBytes raw) {
        RequestRouting.Decision decision = RequestRouting.decide(vhost, request, channel);
        if (decision.answer() != null && decision.close()) {
            ReferenceCountUtil.release(request); // a head the decoder could not parse: its Content-Length may be junk
            return new Answer(decision.answer(), true, false);
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (decision.answer() != null) {
            boolean hasBody = HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
            return new Answer(decision.answer(), hasBody || !keepAlive, false);
        }
        ByteBuf spliced = raw == null ? null
                : RequestSplice.build(channel.alloc(), raw.content(), request, decision.route().target(), forwardingLines());
        if (spliced == null) {
            forwarded(request, decision.route());
        }
        boolean reusable = Exchange.reusableAfter(request);
        return new Forward(new Outgoing(spliced == null ? request : null, spliced,
                HttpMethod.HEAD.equals(request.method()), reusable, Outgoing.retryable(request), false),
                decision.route(), keepAlive);
    }

    /**
     * A head the scan read ({@link PlainRequestHead}; released here): routed on what the scan
     * found, and sent as its bytes with the forwarding lines, unless the route rewrites it (then
     * it is read as an {@link HttpRequest} and encoded). HTTP/1.1 without {@code Connection:
     * close}, no body: it keeps the connection alive.
     */
    Next of(PlainRequest head) {
        try {
            RequestRouting.Decision decision = RequestRouting.decide(vhost, head.routingHost(), head.path(),
                    head.authorization(), channel);
            if (decision.answer() != null) {
                return new Answer(decision.answer(), decision.close(), true);
            }
            boolean headRequest = HttpMethod.HEAD.equals(head.method());
            boolean retryable = Outgoing.retryable(head.method());
            ByteBuf spliced = RequestSplice.plain(head, decision.route().target(), forwardingLines());
            if (spliced != null) {
                return new Forward(new Outgoing(null, spliced, headRequest, true, retryable, true), decision.route(), true);
            }
            HttpRequest request = head.toHttpRequest();
            forwarded(request, decision.route());
            return new Forward(new Outgoing(request, null, headRequest, true, retryable, true), decision.route(), true);
        } finally {
            head.release();
        }
    }

    private ForwardingLines forwardingLines() {
        if (forwardingLines == null) {
            forwardingLines = new ForwardingLines(RequestTarget.ipOf(VisitorAddress.of(channel)), proto);
        }
        return forwardingLines;
    }

    /** Adds the forwarding headers and the route's rewrites to a head that goes re-encoded. */
    private void forwarded(HttpRequest request, Entry<HttpRoute> found) {
        RequestTarget.addForwarded(request, forwardingLines().ip(), proto);
        found.target().rewriteRequest(request);
    }
}
