package dev.tunnel.protocol.mux;

/**
 * Rate-based sizing of one stream's receive window: what the path's bandwidth-delay product needs
 * at the rate the consumer really takes bytes, times the session's {@link WindowGain}.
 *
 * <h3>Control law</h3>
 * Every round (one min RTT, at least {@link #RTT_FLOOR_NANOS}) the consumer's delivery rate is
 * sampled; maxRate is the largest of the last {@link #RATE_ROUNDS} rounds. At the end of a round
 * the window should be gain x maxRate x minRTT ({@link PathDelay} gives the minimum RTT: never a
 * ping that waited in a queue; {@link WindowGain} the gain). A stream limited by its window has a
 * rate of about window / RTT, so while the path has room its window grows by the gain per round;
 * once the path is full the RTT grows with the queue the windows build, and they settle where
 * gain x minRTT is the loop's time: the gain, steered by the queue the pings see, keeps that
 * queue near a few milliseconds, whatever the number of streams. A stream whose consumer is
 * slower than the path gets what its rate needs, not more. On a path shorter than the floor
 * (loopback) the window is {@link WindowGain#START} x maxRate x the floor, whatever the gain.
 * {@link ReceiveWindow} applies the result within its floor, its maximum and its budget.
 *
 * <p>Rounds are counted by delivery: a round or more in which the stream received nothing (the
 * round trip between a stream's OPEN and its first byte, a keep-alive connection between two
 * requests) is no round, and the bytes that end it start the next. Counted by time, that wait
 * would read as a consumer that takes almost nothing and take a new download's start window back
 * just as its first window of bytes arrives. A round
 * whose rate no longer grows (at most {@link #GROWING} x the rounds before) and whose bytes in
 * flight (rate x the latest RTT) were at least {@link #LIMITED_SHARE} of the window was bound by
 * the window, and says so to the {@link WindowGain}, which grows only then: while the rate still
 * grows round over round the windows grow with it, and a gain grown then as well would overshoot
 * once the link is full.
 *
 * <h3>Invariant</h3>
 * After a round the window is what the measured rate pays for: maxRate x max(gain x minRTT,
 * {@link WindowGain#START} x {@link #RTT_FLOOR_NANOS}).
 *
 * <p>Not thread-safe: used only on the session's event loop, by one {@link ReceiveWindow}.
 */
final class WindowControl {
    /** A round lasts at least this, so a loopback path still gets a useful window. */
    static final long RTT_FLOOR_NANOS = 2_000_000L;
    /** Rounds the maximum rate, and the rate's growth, are taken over. */
    static final int RATE_ROUNDS = 4;
    /**
     * Part of the window a round's bytes in flight must fill for the window to count as what bound
     * the rate: a window-bound stream fills all of it but the credit not yet returned, while one
     * whose consumer sets the pace fills about 1 / gain of it.
     */
    static final double LIMITED_SHARE = 0.75;
    /** A round's rate above this multiple of the rounds before is still growing. */
    static final double GROWING = 1.1;
    /** What {@link #onConsumed} returns when it decided nothing. */
    static final int NO_CHANGE = -1;

    private long roundStartNanos;
    private long roundBytes;
    /** The last round's delivery rate, in bytes per nanosecond. */
    private double rate;
    private final double[] rates = new double[RATE_ROUNDS];
    private int nextRate;
    /** A round ended since the last decision. */
    private boolean newRound;

    WindowControl(long nowNanos) {
        this.roundStartNanos = nowNanos;
    }

    /**
     * The consumer took {@code bytes} of a stream whose window is {@code window}: returns the
     * window the stream should have, or {@link #NO_CHANGE} when there is nothing new to decide on.
     */
    int onConsumed(int bytes, long nowNanos, int window, PathDelay delay) {
        long minRtt = delay.minRttNanos();
        long rtt = Math.max(minRtt, RTT_FLOOR_NANOS);
        if (roundBytes == 0 && nowNanos - roundStartNanos >= rtt) {
            roundStartNanos = nowNanos; // a round or more without a byte: no round, these bytes start one
        }
        roundBytes += bytes;
        if (minRtt == 0) {
            return NO_CHANGE; // no RTT yet: nothing to size a window by
        }
        long elapsed = nowNanos - roundStartNanos;
        if (elapsed >= rtt) {
            double before = maxRate();
            endRound(elapsed);
            if (rate <= GROWING * before && rate * (minRtt + delay.queueDelayNanos()) >= LIMITED_SHARE * window) {
                delay.gain().windowLimited(nowNanos);
            }
            roundStartNanos = nowNanos;
            roundBytes = 0;
        }
        if (!newRound) {
            return NO_CHANGE;
        }
        newRound = false;
        return decide(delay.gain().gain(), minRtt);
    }

    private void endRound(long elapsed) {
        rate = (double) roundBytes / elapsed;
        rates[nextRate] = rate;
        nextRate = (nextRate + 1) % RATE_ROUNDS;
        newRound = true;
    }

    /**
     * Whether the queue the pings see can change a window on a path whose base delay is
     * {@code minRttNanos} (unknown: 0). Below {@link WindowGain#START} x {@link #RTT_FLOOR_NANOS}
     * / {@link WindowGain#MAX} (1.2 ms: loopback, a LAN) every window is START x maxRate x the
     * floor, whatever the gain, so the session need not ping often to steer it.
     */
    static boolean queueMovesWindows(long minRttNanos) {
        return minRttNanos == 0 || WindowGain.MAX * minRttNanos > WindowGain.START * RTT_FLOOR_NANOS;
    }

    private int decide(double gain, long minRtt) {
        double reach = Math.max(gain * minRtt, WindowGain.START * RTT_FLOOR_NANOS);
        return (int) Math.min(Integer.MAX_VALUE, maxRate() * reach);
    }

    /** The largest delivery rate of the last {@link #RATE_ROUNDS} rounds. */
    private double maxRate() {
        double max = 0;
        for (double r : rates) {
            max = Math.max(max, r);
        }
        return max;
    }
}
