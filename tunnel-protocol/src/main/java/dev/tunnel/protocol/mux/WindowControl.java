package dev.tunnel.protocol.mux;

/**
 * Delay-based sizing of one stream's receive window: the full rate of the path without a
 * standing queue.
 *
 * <p>A sender limited by its window has the window in flight. Once the window exceeds the
 * path's bandwidth-delay product the excess can only wait in a queue (the bottleneck's, the
 * sender's socket), where every other stream of the session, and every other flow through a
 * shared link, waits behind it. So the window should be about one BDP: the delivery rate times
 * the path's minimum RTT (BBR's estimate), plus what the credit loop itself holds, which is
 * found by probing; the RTT's excess over its minimum (LEDBAT's queueing delay, see
 * {@link PathDelay}) says when probing went too far.
 *
 * <h3>Control law</h3>
 * Every round (one min RTT, at least {@link #RTT_FLOOR_NANOS}) the consumer's delivery rate r is
 * sampled; maxRate is the largest of the last {@link #RATE_ROUNDS} rounds. Once per round with
 * a new RTT sample, with q the path's queueing delay and T the target ({@link #targetNanos}:
 * a tenth of the min RTT, at least {@link #MIN_TARGET_NANOS}):
 * <ul>
 * <li>q &gt; T, a standing queue: W := min(W, {@link #SHRINK_GAIN} x r x minRTT), about one BDP at
 *     the rate the stream gets, which drains the queue within a round;
 * <li>q &lt;= T and W &gt; {@link #CAP_GAIN} x maxRate x minRTT: the stream does not use its window
 *     (its consumer or its sender is slower than the path): W := that cap;
 * <li>q &lt;= T and the rate still grows (by {@link #RATE_GREW} over the last
 *     {@link #RATE_ROUNDS} rounds, after BBR's full-pipe test): W grows by up to half of itself,
 *     times (1 - q / T);
 * <li>q &lt;= T and the rate stopped growing: W grows by up to a sixteenth of itself, times
 *     (1 - q / T), so it creeps toward the target queue instead of jumping past it.
 * </ul>
 * {@link ReceiveWindow} applies the result within its floor, its maximum and its budget.
 *
 * <h3>Invariant</h3>
 * The window never grows while the path's queue is above the target, nor beyond
 * CAP_GAIN x maxRate x minRTT, what the measured rate pays for; after a round that saw q &gt; T
 * the stream has about rate x minRTT in flight. So its part of the standing queue is at most
 * T x rate plus one growth step.
 *
 * <p>Like LEDBAT, a stream yields to a queue it did not build: a queue above the target that other
 * traffic holds shrinks it toward rate x min RTT, never below its window's floor.
 *
 * <p>Not thread-safe: used only on the session's event loop, by one {@link ReceiveWindow}.
 */
final class WindowControl {
    /** A round lasts at least this, so a loopback path still gets a useful window. */
    static final long RTT_FLOOR_NANOS = 2_000_000L;
    /** The smallest queueing-delay target: what a busy event loop adds to a ping by itself. */
    static final long MIN_TARGET_NANOS = 5_000_000L;
    /** The queueing-delay target is the min RTT over this, or {@link #MIN_TARGET_NANOS}. */
    static final int TARGET_DIVISOR = 10;
    /**
     * Window after a shrink over rate x min RTT: above 1 by what the credit loop holds beyond the
     * path (credit not yet returned, up to a sixteenth of the window; bytes on their way to the
     * consumer).
     */
    static final double SHRINK_GAIN = 1.125;
    /** A window is never more than this x maxRate x min RTT. */
    static final double CAP_GAIN = 2.0;
    /**
     * The rate grows while a round's rate is this much above that of {@link #RATE_ROUNDS} - 1
     * rounds before: more than a window creeping by a sixteenth per round makes it grow.
     */
    static final double RATE_GREW = 1.15;
    /** Rounds the maximum rate, and the rate's growth, are taken over. */
    static final int RATE_ROUNDS = 4;
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
    /** The {@link PathDelay#samples()} count of the last decision. */
    private int decidedAtSample;

    WindowControl(long nowNanos) {
        this.roundStartNanos = nowNanos;
    }

    /**
     * The consumer took {@code bytes} of a stream whose window is {@code window}: returns the
     * window the stream should have, or {@link #NO_CHANGE} when there is nothing new to decide on.
     */
    int onConsumed(int bytes, long nowNanos, int window, PathDelay delay) {
        long minRtt = delay.minRttNanos();
        roundBytes += bytes;
        if (minRtt == 0) {
            return NO_CHANGE; // no RTT yet: nothing to size a window by
        }
        long rtt = Math.max(minRtt, RTT_FLOOR_NANOS);
        long elapsed = nowNanos - roundStartNanos;
        if (elapsed >= rtt) {
            endRound(elapsed);
            roundStartNanos = nowNanos;
            roundBytes = 0;
        }
        if (!newRound || delay.samples() == decidedAtSample) {
            return NO_CHANGE;
        }
        newRound = false;
        decidedAtSample = delay.samples();
        return decide(window, rtt, delay.queueDelayNanos(), targetNanos(minRtt));
    }

    /** The queueing delay a window may add to a path whose minimum RTT is {@code minRttNanos}. */
    static long targetNanos(long minRttNanos) {
        return Math.max(MIN_TARGET_NANOS, minRttNanos / TARGET_DIVISOR);
    }

    /** Whether the rate has stopped growing: the last round's is not {@link #RATE_GREW} above the oldest round's. */
    boolean pipeFull() {
        double oldest = rates[nextRate];
        return oldest > 0 && rate < RATE_GREW * oldest;
    }

    private void endRound(long elapsed) {
        rate = (double) roundBytes / elapsed;
        rates[nextRate] = rate;
        nextRate = (nextRate + 1) % RATE_ROUNDS;
        newRound = true;
    }

    private int decide(int window, long rtt, long queue, long target) {
        if (queue > target) {
            return (int) Math.min(window, SHRINK_GAIN * rate * rtt);
        }
        double maxRate = 0;
        for (double r : rates) {
            maxRate = Math.max(maxRate, r);
        }
        double cap = Math.min(Integer.MAX_VALUE, CAP_GAIN * maxRate * rtt);
        if (window > cap) {
            return (int) cap;
        }
        double step = (pipeFull() ? window / 16.0 : window / 2.0) * (1 - (double) queue / target);
        return (int) Math.min(cap, window + step);
    }
}
