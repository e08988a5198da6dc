package dev.tunnel.server.vhost;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What every vhost connection shares: the route tables, the error pages, the timeouts, and
 * counters of rejected input and of reused connections an operator can watch.
 *
 * @param responseTimeoutSeconds {@code vhostHTTPTimeout}: how long a local app may take to start its response
 * @param headTimeoutSeconds     how long a request head (or a ClientHello) may take to arrive, and
 *                               how long a keep-alive connection may stay idle
 * @param bodyTimeoutSeconds     {@code vhostHTTPBodyTimeout}: how long a request body may go without a
 *                               byte reaching the app (then 408, or a close once the response started)
 */
public record VhostSettings(RouteTable<HttpRoute> httpRoutes, RouteTable<VhostTarget> httpsRoutes, ErrorPages pages,
                           int responseTimeoutSeconds, int headTimeoutSeconds, int bodyTimeoutSeconds,
                           Counters counters) {

    /** Longest request line accepted (longer: 414). */
    public static final int MAX_REQUEST_LINE = 8 * 1024;
    /** Longest request header block accepted (longer: 431). */
    public static final int MAX_REQUEST_HEADERS = 32 * 1024;
    /** Seconds a request head or ClientHello may take to arrive, and a keep-alive connection may idle. */
    public static final int HEAD_TIMEOUT_SECONDS = 60;
    /** Largest ClientHello read for SNI (longer: closed). */
    public static final int MAX_CLIENT_HELLO = 16 * 1024;

    /** Rejected input by kind, and connection reuse; thread-safe. */
    public static final class Counters {
        public final AtomicLong badRequests = new AtomicLong();
        public final AtomicLong slowHeads = new AtomicLong();
        /** Request bodies ended after {@code vhostHTTPBodyTimeout} without a byte. */
        public final AtomicLong slowBodies = new AtomicLong();
        public final AtomicLong notFound = new AtomicLong();
        public final AtomicLong unauthorized = new AtomicLong();
        public final AtomicLong badGateway = new AtomicLong();
        public final AtomicLong gatewayTimeout = new AtomicLong();
        public final AtomicLong tlsUnrouted = new AtomicLong();
        /** Connections to apps opened for requests, and requests' idle connections taken from a pool instead. */
        public final AtomicLong upstreamsOpened = new AtomicLong();
        public final AtomicLong upstreamsReused = new AtomicLong();
        /** Requests sent again on a new connection after a reused one failed before any response byte. */
        public final AtomicLong retried = new AtomicLong();
    }
}
