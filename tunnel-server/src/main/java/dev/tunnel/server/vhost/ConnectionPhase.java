package dev.tunnel.server.vhost;

import io.netty.handler.codec.http.HttpRequest;

/**
 * Where a vhost connection ({@link HttpVhostHandler}) stands in its current exchange, and what
 * it takes from its visitor there: a request head only while one is awaited, a body part only
 * while a body is forwarded or dropped; everything else waits ({@link VisitorReads}).
 *
 * <p>Threading: a value; the handler's phase is its event loop's.
 */
enum ConnectionPhase {
    /** Awaiting a request head. */
    HEAD,
    /** Waiting for a connection to the routed proxy. */
    OPENING,
    /** Forwarding the request's body. */
    BODY,
    /** Dropping the body of a request answered here. */
    DISCARD,
    /** Awaiting the rest of the response. */
    RESPONSE,
    /** Handed to a relay. */
    UPGRADED,
    /** Done: nothing more is read or handled. */
    CLOSING;

    /** Whether {@code msg}, read from the visitor, can be handled now; else it waits for the exchange to end. */
    boolean takes(Object msg) {
        return this == HEAD || ((this == BODY || this == DISCARD) && !isHead(msg));
    }

    /**
     * Whether the socket is to be read on: while what it brings can be handled, or held without
     * growing (see {@link VisitorReads#readIfWanted}).
     *
     * @param upstreamWritable the connection to the app can take a body part now
     */
    boolean reads(boolean upstreamWritable) {
        return this == HEAD || this == DISCARD || this == RESPONSE || (this == BODY && upstreamWritable);
    }

    /** A request head, or the bytes of one that the decoder hands on just before it. */
    static boolean isHead(Object msg) {
        return msg instanceof HttpRequest || msg instanceof RequestDecoder.HeadBytes || msg instanceof PlainRequest;
    }
}
