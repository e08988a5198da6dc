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

    private int decide(double gain, long minRtt) {
        double maxRate = 0;
        for (double r : rates) {
            maxRate = Math.max(maxRate, r);
        }
        double reach = Math.max(gain * minRtt, WindowGain.START * RTT_FLOOR_NANOS);
        return (int) Math.min(Integer.MAX_VALUE, maxRate * reach);
    }
}
