package dev.tunnel.server.vhost;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Where the current request/response exchange of a vhost connection stands: which parts are
 * complete, whether the response has started (after that an error can only close the
 * connection), whether it switches protocols (101), and whether the connection may carry another
 * request afterwards. Interim responses (100 Continue) start nothing.
 *
 * <p>Threading: the connection's event loop.
 */
final class Exchange {
    /** The request and the response both allow another request on the connection. */
    boolean keepAlive;
    boolean requestDone;
    boolean responseStarted;
    boolean responseDone;
    /**
     * The connection to the app may carry another request once this exchange is complete: the
     * request went as HTTP/1.1 keep-alive without an upgrade, and the response keeps it alive and
     * is framed by its length or chunks (not by the close).
     */
    boolean upstreamReusable;
    /** The app answered 101: raw bytes follow, whatever the codec makes of them. */
    boolean upgrading;
    private boolean headRequest;

    /** A new request head arrived (before it is routed or answered); {@code keepAlive}: it allows another request. */
    void request(boolean keepAlive) {
        this.keepAlive = keepAlive;
    }

    /**
     * Whether the connection to the app may carry another request after {@code request}: it goes
     * as HTTP/1.1 without an upgrade. A visitor's {@code Connection: close} on such a request is
     * about its own connection, so it is taken off the request here (as nginx and Go's reverse
     * proxy do): the connection to the app stays open for the next request from anyone.
     */
    static boolean reusableAfter(HttpRequest request) {
        HttpHeaders headers = request.headers();
        boolean reusable = HttpVersion.HTTP_1_1.equals(request.protocolVersion())
                && !headers.contains(HttpHeaderNames.UPGRADE);
        if (reusable && headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true)) {
            headers.remove(HttpHeaderNames.CONNECTION);
        }
        return reusable;
    }

    /**
     * The routed request goes to its proxy: nothing of its answer has come yet.
     *
     * @param reusable    the request leaves the connection to the app reusable ({@link #reusableAfter})
     * @param headRequest it is a HEAD request: its answer has no body
     */
    void dispatched(boolean reusable, boolean headRequest) {
        upstreamReusable = reusable;
        this.headRequest = headRequest;
        requestDone = false;
        responseStarted = false;
        responseDone = false;
        upgrading = false;
    }

    /** A response head from the app; returns whether it is final (101 or 2xx-5xx) rather than interim. */
    boolean responseHead(ResponseHead response) {
        int code = response.code();
        if (code == 101) {
            upstreamReusable = false;
            upgrading = true; // the codec may not end a 101 with a last part: raw bytes follow it
            responseDone = true;
            return true;
        }
        if (code < 200) {
            return false;
        }
        responseStarted = true;
        if (!response.keepAlive() || delimitedByClose(response)) {
            keepAlive = false;
            upstreamReusable = false;
        }
        return true;
    }

    /** A response ended (an interim one, such as 100 Continue, ends nothing). */
    void responseEnded() {
        if (responseStarted || upgrading) {
            responseDone = true;
        }
    }

    boolean complete() {
        return requestDone && responseDone;
    }

    /** A response whose body ends when the app closes: the visitor learns its end only by a close too. */
    private boolean delimitedByClose(ResponseHead response) {
        int code = response.code();
        return !headRequest && code != 204 && code != 304 && !response.framed();
    }
}
