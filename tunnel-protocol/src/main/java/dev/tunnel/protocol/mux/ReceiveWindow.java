package dev.tunnel.protocol.mux;

/**
 * Receive-side credit of one stream, with its window sized by {@link WindowControl}.
 *
 * <p>The peer may send {@link #available()} more bytes. Credit goes back only for bytes the
 * consumer has actually taken ({@link #onConsumed}), in one update once a sixteenth of the window
 * has been consumed ({@link #UPDATE_FRACTION}). Invariant: available + buffered + unacked == window,
 * so the bytes buffered for a stream never exceed its window.
 *
 * <h3>Sizing</h3>
 * {@link WindowControl} decides the window the stream should have, from the rate its consumer
 * takes bytes at and the queueing delay the session's pings see ({@link PathDelay}); each update
 * moves the window toward it. Growth is at most a doubling per update and only what the
 * {@link Budget} grants; shrinking withholds credit for consumed bytes, down to the floor, and
 * returns the difference to the budget. Bytes already granted cannot be taken back: a stream that
 * stops draining keeps its window until it drains again (or closes), which is why windows start
 * small and grow only on proof.
 *
 * <h3>Squeezing</h3>
 * Under memory pressure a stream that holds many bytes is {@linkplain #squeeze() squeezed}
 * ({@link StreamPressure}): its window goes down to {@link #SQUEEZED_WINDOW}, below its floor, as
 * its consumer takes bytes, and does not grow until {@linkplain #unsqueeze() released}.
 *
 * <p>Not thread-safe: used only on the session's event loop.
 */
final class ReceiveWindow {
    /**
     * Credit goes back once this fraction of the window was consumed: small, since credit not yet
     * returned is window the sender cannot use.
     */
    static final int UPDATE_FRACTION = 16;
    /** The window of a squeezed stream. */
    static final int SQUEEZED_WINDOW = 16 * 1024;

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
    /** The window {@link #control} last decided on; updates move {@link #window} toward it. */
    private int goal;
    private boolean squeezed;
    private final WindowControl control;

    ReceiveWindow(int initialWindow, int maxWindow, long nowNanos) {
        this(initialWindow, initialWindow, maxWindow, nowNanos);
    }

    /**
     * @param initialWindow what the peer may send before any update
     * @param minWindow     shrinking stops here
     */
    ReceiveWindow(int initialWindow, int minWindow, int maxWindow, long nowNanos) {
        this.window = initialWindow;
        this.goal = initialWindow;
        this.minWindow = Math.min(minWindow, initialWindow);
        this.maxWindow = Math.max(initialWindow, maxWindow);
        this.available = initialWindow;
        this.control = new WindowControl(nowNanos);
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
        int growth = squeezed ? 0 : budget.grant(this, Math.min(wanted, maxWindow - window));
        window += growth;
        available += growth;
        goal = Math.max(goal, window);
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
     * @param delay the session's path delay; before its first sample the window keeps its size
     * @return the credit to send to the peer now, or 0 to wait for more consumption
     */
    int onConsumed(int bytes, long nowNanos, PathDelay delay, Budget budget) {
        unacked += bytes;
        int decided = control.onConsumed(bytes, nowNanos, window, delay);
        if (decided != WindowControl.NO_CHANGE) {
            goal = Math.max(minWindow, Math.min(maxWindow, decided));
        }
        if (unacked < window / UPDATE_FRACTION) {
            return 0;
        }
        int floor = squeezed ? Math.min(minWindow, SQUEEZED_WINDOW) : minWindow;
        int target = squeezed ? Math.min(goal, SQUEEZED_WINDOW) : goal;
        int growth = 0;
        int shrink = 0;
        if (target > window && !squeezed) {
            growth = budget.grant(this, Math.min(target - window, window));
        } else if (target < window && window > floor) {
            shrink = Math.min(unacked, window - Math.max(target, floor));
            budget.release(shrink);
        }
        window += growth - shrink;
        int credit = unacked + growth - shrink;
        unacked = 0;
        available += credit;
        return credit;
    }

    /** Memory pressure: the window goes down to {@link #SQUEEZED_WINDOW} as bytes are consumed, and stops growing. */
    void squeeze() {
        squeezed = true;
    }

    /** The pressure is over: the window is sized as before. */
    void unsqueeze() {
        squeezed = false;
    }

    boolean squeezed() {
        return squeezed;
    }

    /** Bytes received and not yet consumed. */
    int buffered() {
        return window - available - unacked;
    }

    int window() {
        return window;
    }

    int available() {
        return available;
    }
}
