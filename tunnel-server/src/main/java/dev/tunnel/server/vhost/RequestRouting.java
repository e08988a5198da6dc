package dev.tunnel.server.vhost;

import dev.tunnel.runtime.BurstLog;
import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what becomes of one request head: a route to a proxy, or an answer the vhost gives
 * itself (400/414/431 then close, 404, 401). Counts and logs the refusals.
 */
final class RequestRouting {
    private static final Logger log = LoggerFactory.getLogger(HttpVhostHandler.class);
    private static final BurstLog NOT_FOUND_LOG = new BurstLog(log);

    private RequestRouting() {
    }

    /** The outcome: {@code route} to forward to, or {@code answer} (closing the connection when {@code close}). */
    record Decision(Entry<HttpRoute> route, FullHttpResponse answer, boolean close) {
    }

    /**
     * Why a request's body framing could be read two ways, or null. The decoder already refuses
     * {@code Content-Length} beside {@code Transfer-Encoding}, several {@code Content-Length}s and
     * bare LF line ends, and joins folded lines (RequestFramingTest holds it to that); what it lets through
     * and an app behind could frame differently is a transfer coding other than exactly one
     * {@code chunked} (say {@code chunked, gzip}, or {@code identity}), or one on an HTTP/1.0
     * request, which predates transfer codings.
     */
    static String ambiguousFraming(HttpRequest request) {
        if (!request.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)) {
            return null;
        }
        List<String> codings = request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (!HttpVersion.HTTP_1_1.equals(request.protocolVersion())) {
            return "Transfer-Encoding on an HTTP/1.0 request";
        }
        if (codings.size() != 1 || !HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(codings.get(0).trim())) {
            return "Transfer-Encoding other than chunked";
        }
        return null;
    }

    /**
     * The decision for a head Netty's decoder read: 400 for one it failed, ambiguous framing,
     * several Host headers (RFC 9112 3.2) or a refused target ({@link RequestTarget}); else as
     * below, by the target's host and normalized path. A routed request is made what its app is
     * sent ({@link RequestTarget#applyTo}: origin-form, the normalized path, an absolute-form
     * target's authority as Host).
     */
    static Decision decide(VhostSettings vhost, HttpRequest request, Channel ch) {
        if (request.decoderResult().isFailure()) {
            Throwable cause = request.decoderResult().cause();
            vhost.counters().badRequests.incrementAndGet();
            HttpResponseStatus status = cause instanceof TooLongHttpLineException ? HttpResponseStatus.REQUEST_URI_TOO_LONG
                    : cause instanceof TooLongHttpHeaderException ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
                    : HttpResponseStatus.BAD_REQUEST;
            log.debug("{} bad request ({}): {}", ch, status.code(), cause.toString());
            String why = status == HttpResponseStatus.BAD_REQUEST ? "The request could not be parsed."
                    : "The request line or headers are larger than this server accepts ("
                    + VhostSettings.MAX_REQUEST_LINE + " / " + VhostSettings.MAX_REQUEST_HEADERS + " bytes).";
            return new Decision(null, ErrorPages.badRequest(ch.alloc(), status, why), true);
        }
        String framing = ambiguousFraming(request);
        if (framing != null) {
            return refused(vhost, ch, framing, "The request's framing is ambiguous: " + framing + ".");
        }
        if (request.headers().getAll(HttpHeaderNames.HOST).size() > 1) {
            return refused(vhost, ch, "several Host headers", "The request has more than one Host header.");
        }
        RequestTarget target = RequestTarget.of(request);
        if (target.problem() != null) {
            return refused(vhost, ch, target.problem(), "The request target is refused: " + target.problem() + ".");
        }
        Decision decision = decide(vhost, target.host(), target.path(), request.headers().get(HttpHeaderNames.AUTHORIZATION),
                ch);
        if (decision.route() != null) {
            target.applyTo(request);
        }
        return decision;
    }

    /** 400 and close, counted; {@code why} is logged, {@code page} is what the visitor reads. */
    private static Decision refused(VhostSettings vhost, Channel ch, String why, String page) {
        vhost.counters().badRequests.incrementAndGet();
        log.debug("{} bad request (400): {}", ch, why);
        return new Decision(null, ErrorPages.badRequest(ch.alloc(), HttpResponseStatus.BAD_REQUEST, page), true);
    }

    /**
     * The route for a request to {@code host} and {@code path} ({@link RequestTarget}), or the
     * answer for one with no host, an unknown one, or missing or wrong credentials.
     *
     * @param path          the normalized path ({@link RequestPath#normalize})
     * @param host          the routing name, or null when the request names none
     * @param authorization the request's Authorization header, or null
     */
    static Decision decide(VhostSettings vhost, String host, String path, String authorization, Channel ch) {
        if (host == null) {
            return refused(vhost, ch, "no Host", "The request has no Host header, so it cannot be routed.");
        }
        Entry<HttpRoute> found = vhost.httpRoutes().find(host, RequestPath.forMatching(path),
                BasicCredentials.userOf(authorization));
        if (found == null) {
            vhost.counters().notFound.incrementAndGet();
            NOT_FOUND_LOG.warn("{} 404 for host [{}] path [{}]: no http proxy serves it", ch, host, path);
            return new Decision(null, vhost.pages().notFound(ch.alloc()), false);
        }
        HttpRoute r = found.target();
        if (r.needsAuth()) {
            BasicCredentials given = BasicCredentials.parse(authorization);
            if (given == null || !given.matches(r.httpUser(), r.httpPassword())) {
                vhost.counters().unauthorized.incrementAndGet();
                log.debug("{} 401 for {}: {}", ch, HttpRoute.describe(found),
                        given == null ? "no credentials" : "wrong credentials");
                return new Decision(null, vhost.pages().unauthorized(ch.alloc()), false);
            }
        }
        return new Decision(found, null, false);
    }
}
