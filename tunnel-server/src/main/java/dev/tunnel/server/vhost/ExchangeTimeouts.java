package dev.tunnel.server.vhost;

import io.netty.channel.Channel;

/**
 * The deadlines of a vhost connection, one running at a time on its {@link ConnectionTimer}: a
 * request head to arrive (also how long a keep-alive connection may idle), the next byte of a
 * request body ({@code vhostHTTPBodyTimeout}), the start of the response ({@code vhostHTTPTimeout}).
 * Arming one replaces the one before; what expiry does is the connection's.
 *
 * <p>Threading: the connection's event loop only; {@link #stop} before the connection changes loops.
 */
final class ExchangeTimeouts {
    private final ConnectionTimer timer;
    private final VhostSettings vhost;
    private final Runnable headExpired;
    private final Runnable bodyExpired;
    private final Runnable responseExpired;

    ExchangeTimeouts(Channel channel, VhostSettings vhost, Runnable headExpired, Runnable bodyExpired,
                     Runnable responseExpired) {
        this.timer = new ConnectionTimer(channel);
        this.vhost = vhost;
        this.headExpired = headExpired;
        this.bodyExpired = bodyExpired;
        this.responseExpired = responseExpired;
    }

    /** A request head is awaited. */
    void awaitHead() {
        timer.start(vhost.headTimeoutSeconds(), headExpired);
    }

    /** The request's body is awaited: its next byte. */
    void awaitBody() {
        timer.start(vhost.bodyTimeoutSeconds(), bodyExpired);
    }

    /** The request went whole: its response is awaited. */
    void awaitResponse() {
        timer.start(vhost.responseTimeoutSeconds(), responseExpired);
    }

    /** No deadline runs. */
    void cancel() {
        timer.cancel();
    }

    /** No deadline runs and no task stays scheduled: before a loop change, or once closed. */
    void stop() {
        timer.stop();
    }
}
