package dev.tunnel.server.vhost;

/**
 * The request in flight while it may be sent again on a new connection (it went on a reused one
 * and is {@link Outgoing#retryable}), until the app answers; its spliced bytes, if any, held by
 * a reference of their own: {@code length} of them at {@code from} (sending moves the buffer's
 * indices, never those bytes).
 *
 * <p>Threading: the public connection's event loop ({@link HttpVhostHandler}).
 */
final class RetryHold {
    private Outgoing held;
    private int from;
    private int length;

    /** Holds {@code head}, about to be sent (its own reference goes with it). */
    void hold(Outgoing head) {
        held = head;
        if (head.spliced() != null) {
            from = head.spliced().readerIndex();
            length = head.spliced().readableBytes();
            head.spliced().retain();
        }
    }

    boolean holding() {
        return held != null;
    }

    /** The held head to send again (with references of its own); nothing is held afterwards. */
    Outgoing takeAgain() {
        Outgoing again = held.again(from, length);
        drop();
        return again;
    }

    /** The app answered, or the connection ends: the head is not sent again. */
    void drop() {
        if (held != null) {
            held.release();
            held = null;
        }
    }
}
