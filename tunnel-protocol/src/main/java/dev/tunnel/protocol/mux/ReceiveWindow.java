package dev.tunnel.protocol.mux;

/**
 * Receive-side credit of one stream, with window auto-tuning.
 *
 * <p>The peer may send {@link #available()} more bytes. Credit goes back only for bytes the
 * consumer has actually taken ({@link #onConsumed}), in one update once half the window has
 * been consumed, as HTTP/2 implementations do. When half a window was consumed in less than
 * two round trips, the window is the bottleneck, so it doubles (up to the maximum): a fast
 * consumer on a long link gets a window near the bandwidth-delay product, a slow or stalled
 * consumer never grows past the initial window. Invariant: available + buffered + unacked ==
 * window, so the bytes buffered for a stream never exceed its window.
 *
 * <p>Not thread-safe: used only on the session's event loop.
 */
final class ReceiveWindow {
    private final int maxWindow;
    private int window;
    private int available;
    private int unacked;
    private long epochNanos;

    ReceiveWindow(int initialWindow, int maxWindow, long nowNanos) {
        this.window = initialWindow;
        this.maxWindow = Math.max(initialWindow, maxWindow);
        this.available = initialWindow;
        this.epochNanos = nowNanos;
    }

    /** Accounts for {@code bytes} received; false if the peer sent more than its credit. */
    boolean onReceived(int bytes) {
        if (bytes > available) {
            return false;
        }
        available -= bytes;
        return true;
    }

    /**
     * Accounts for {@code bytes} taken by the consumer.
     *
     * @return the credit to send to the peer now, or 0 to wait for more consumption
     */
    int onConsumed(int bytes, long nowNanos, long rttNanos) {
        unacked += bytes;
        if (unacked < window / 2) {
            return 0;
        }
        int growth = 0;
        if (rttNanos > 0 && window < maxWindow && nowNanos - epochNanos < 2 * rttNanos) {
            growth = Math.min(window, maxWindow - window);
            window += growth;
        }
        epochNanos = nowNanos;
        int credit = unacked + growth;
        unacked = 0;
        available += credit;
        return credit;
    }

    int window() {
        return window;
    }

    int available() {
        return available;
    }
}
