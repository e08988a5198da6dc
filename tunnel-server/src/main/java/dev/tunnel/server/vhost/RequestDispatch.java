package dev.tunnel.server.vhost;

import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.channel.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts each routed request head of a vhost connection on a connection to its proxy's app: the
 * current one when it serves, else one had from {@link Upstreams} (which may move the public
 * connection to another loop first, and answer later). A head that went on a reused connection
 * and may go again ({@link Outgoing#retryable}) is held ({@link RetryHold}) until the app
 * answers; if that connection closes or resets first, {@link #sendAgain} sends it once more on a
 * new one, as Go's {@code http.Transport} does.
 *
 * <p>Invariant: a head handed in reaches {@link Opened#opened} exactly once, with its ownership;
 * at most one head is held, and only until the app's first byte of an answer
 * ({@link #answered}) or the connection's end.
 *
 * <p>Threading: the connection's event loop (which changes with the moves).
 */
final class RequestDispatch {
    private static final Logger log = LoggerFactory.getLogger(HttpVhostHandler.class);

    /** What the connection does once a head has a connection to go on, or none could be had. */
    interface Opened {
        /**
         * @param head   what to send (ownership passes)
         * @param ok     {@link Upstreams#current} is a connection to {@code route}'s proxy; false: none could be had
         * @param again  the head goes a second time ({@link #sendAgain})
         * @param waited it comes from a callback, not from {@link #dispatch} itself: nothing was read meanwhile
         */
        void opened(Outgoing head, Entry<HttpRoute> route, boolean ok, boolean again, boolean waited);
    }

    private final Channel channel;
    private final Upstreams upstreams;
    private final VhostSettings.Counters counters;
    private final Opened then;
    private final RetryHold retry = new RetryHold();
    private Entry<HttpRoute> route;
    private boolean dispatching;

    RequestDispatch(Channel channel, Upstreams upstreams, VhostSettings.Counters counters, Opened then) {
        this.channel = channel;
        this.upstreams = upstreams;
        this.counters = counters;
        this.then = then;
    }

    /**
     * Has a connection for {@code head} to {@code found}'s proxy: the one the previous request
     * used when it goes to the same proxy, else one from {@link Upstreams}, which may have to wait.
     */
    void dispatch(Outgoing head, Entry<HttpRoute> found) {
        dispatching = true;
        if (upstreams.ready(found)) {
            then.opened(head, found, true, false, false); // the common case, without a callback to make
        } else {
            upstreams.forRoute(found, false, ok -> then.opened(head, found, ok, false, !dispatching));
        }
        dispatching = false;
    }

    /** Sends {@code head} (ownership passes) on the current connection, held for a retry where it may go again. */
    void send(Outgoing head, Entry<HttpRoute> found, boolean again) {
        route = found;
        Upstream up = upstreams.current();
        if (!again && up.reused() && head.retryable()) {
            retry.hold(head);
        }
        up.sendHead(head.encode(), head.spliced(), head.headRequest());
    }

    /** The route of the request in flight (or last sent). */
    Entry<HttpRoute> route() {
        return route;
    }

    /** Whether the request in flight may be sent again: nothing of its answer has come. */
    boolean canSendAgain() {
        return retry.holding();
    }

    /** The app answered, or the connection ends: the request in flight is not sent again. */
    void answered() {
        retry.drop();
    }

    /** Sends the request in flight again on a new connection: the reused one failed before answering. */
    void sendAgain() {
        Outgoing again = retry.takeAgain();
        counters.retried.incrementAndGet();
        log.debug("{} {} closed before answering; sending the request again on a new connection", channel,
                HttpRoute.describe(route));
        upstreams.end(true);
        Entry<HttpRoute> found = route;
        upstreams.forRoute(found, true, ok -> then.opened(again, found, ok, true, !dispatching));
    }
}
