package dev.tunnel.protocol.mux;

/**
 * Receive-side credit of one stream, with window auto-tuning.
 *
 * <p>The peer may send {@link #available()} more bytes. Credit goes back only for bytes the
 * consumer has actually taken ({@link #onConsumed}), in one update once a sixteenth of the window
 * has been consumed ({@link #UPDATE_FRACTION}). Invariant: available + buffered + unacked == window, so the bytes buffered
 * for a stream never exceed its window.
 *
 * <h3>Auto-tuning</h3>
 * At each update the window moves toward {@code 1.5 x drain rate x min RTT}: the drain rate is
 * what the consumer really took, sampled over at least one round trip (fast up, slow down),
 * the RTT the path's minimum
 * (never a ping that waited in a queue, ours or the network's), so a window that only fills
 * queues never pays for itself and a stream that slows down gives its window back. Growth is at
 * most a doubling per update and only what the {@link Budget} grants; shrinking withholds credit
 * for consumed bytes, down to the minimum window, and returns the difference to the budget.
 * Bytes already granted cannot be taken back: a stream that stops draining keeps its window
 * until it drains again (or closes), which is why windows start small and grow only on proof.
 *
 * <p>Not thread-safe: used only on the session's event loop.
 */
final class ReceiveWindow {
    /** The RTT used for tuning is at least this, so a loopback path still gets a useful window. */
    static final long MIN_RTT_FLOOR_NANOS = 2_000_000L;
    /**
     * Window over drain rate x min RTT. Above 1 by what a data round trip takes beyond a ping's
     * (a read's serialisation at the bottleneck, credit waiting to be returned): at 1.25 the
     * window settled where it only paid for itself, at a fifth of an 80 ms, 50 Mbit/s link.
     */
    static final double GAIN = 1.5;
    /**
     * Credit goes back once this fraction of the window was consumed: small, since credit not yet
     * returned is window the sender cannot use, which tuning would otherwise mistake for a slower
     * consumer and never grow past.
     */
    static final int UPDATE_FRACTION = 16;

    /** Where a window's growth comes from. */
    interface Budget {
        /** Reserves up to {@code wanted} more bytes for {@code window}; returns what it reserved. */
        int grant(ReceiveWindow window, int wanted);

        /** Gives {@code bytes} back. */
        void release(int bytes);
    }

    /** A budget without limits (tests, and benchmarks of the window alone). */
    static final Budget UNLIMITED = new Budget() {
        @Override
        public int grant(ReceiveWindow window, int wanted) {
            return wanted;
        }

        @Override
        public void release(int bytes) {
        }
    };

    private int minWindow;
    private final int maxWindow;
    private int window;
    private int available;
    private int unacked;
    /** Start of the current drain-rate sample, and the bytes consumed since. */
    private long sampleStartNanos;
    private long sampleBytes;
    /** Drain rate in bytes per nanosecond. */
    private double rate;

    ReceiveWindow(int initialWindow, int maxWindow, long nowNanos) {
        this(initialWindow, initialWindow, maxWindow, nowNanos);
    }

    /**
     * @param initialWindow what the peer may send before any update
     * @param minWindow     shrinking stops here
     */
    ReceiveWindow(int initialWindow, int minWindow, int maxWindow, long nowNanos) {
        this.window = initialWindow;
        this.minWindow = Math.min(minWindow, initialWindow);
        this.maxWindow = Math.max(initialWindow, maxWindow);
        this.available = initialWindow;
        this.sampleStartNanos = nowNanos;
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
     * Grows the window by what {@code budget} grants of {@code wanted}, at once: the credit to
     * send to the peer now.
     */
    int grow(int wanted, Budget budget) {
        int growth = budget.grant(this, Math.min(wanted, maxWindow - window));
        window += growth;
        available += growth;
        return growth;
    }

    /**
     * Grows the window to {@code floor} as far as {@code budget} grants, and raises the minimum
     * that shrinking stops at to the window reached (never above {@code floor}). Returns the
     * growth: the credit to send to the peer now.
     */
    int raiseFloor(int floor, Budget budget) {
        int target = Math.min(floor, maxWindow);
        int growth = window < target ? grow(target - window, budget) : 0;
        minWindow = Math.max(minWindow, Math.min(target, window));
        return growth;
    }

    /**
     * Accounts for {@code bytes} taken by the consumer.
     *
     * @param minRttNanos the path's minimum round-trip time, or 0 when not known yet (no tuning)
     * @return the credit to send to the peer now, or 0 to wait for more consumption
     */
    int onConsumed(int bytes, long nowNanos, long minRttNanos, Budget budget) {
        return onConsumed(bytes, nowNanos, minRttNanos, budget, GAIN);
    }

    /** As {@link #onConsumed(int, long, long, Budget)}, tuning toward {@code gain} x rate x min RTT. */
    int onConsumed(int bytes, long nowNanos, long minRttNanos, Budget budget, double gain) {
        unacked += bytes;
        sampleBytes += bytes;
        long rtt = Math.max(minRttNanos, MIN_RTT_FLOOR_NANOS);
        long elapsed = nowNanos - sampleStartNanos;
        if (minRttNanos > 0 && elapsed >= rtt) {
            // one sample per round trip at least: what arrives in bursts averages out over one
            double sample = (double) sampleBytes / elapsed;
            rate = sample > rate ? sample : 0.5 * (rate + sample);
            sampleStartNanos = nowNanos;
            sampleBytes = 0;
        }
        if (unacked < window / UPDATE_FRACTION) {
            return 0;
        }
        int growth = 0;
        int shrink = 0;
        if (minRttNanos > 0 && rate > 0) {
            double target = gain * rate * rtt;
            if (target > window && window < maxWindow) {
                growth = budget.grant(this, (int) Math.min(Math.min(target - window, window), maxWindow - window));
            } else if (target < window && window > minWindow) {
                shrink = (int) Math.min(unacked, Math.min(window - minWindow, window - (long) target));
                budget.release(shrink);
            }
        }
        window += growth - shrink;
        int credit = unacked + growth - shrink;
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
