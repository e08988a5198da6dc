package dev.tunnel.protocol.mux;

/**
 * Rate-based sizing of one stream's receive window: about what the path's bandwidth-delay
 * product needs at the rate the consumer really takes bytes.
 *
 * <h3>Control law</h3>
 * Every round (one min RTT, at least {@link #RTT_FLOOR_NANOS}) the consumer's delivery rate is
 * sampled; maxRate is the largest of the last {@link #RATE_ROUNDS} rounds. At the end of a round
 * the window should be {@link #GAIN} x maxRate x minRTT ({@link PathDelay} gives the minimum RTT:
 * never a ping that waited in a queue). A stream limited by its window has a rate of about
 * window / RTT, so while the path has room its window grows by up to half a round; once the path
 * is full the RTT grows with the queue the window builds, and the window settles where
 * GAIN x minRTT = RTT: at most (GAIN - 1) x minRTT of this stream's bytes stand in a queue. A
 * stream whose consumer is slower than the path gets what its rate needs, not more.
 * {@link ReceiveWindow} applies the result within its floor, its maximum and its budget.
 *
 * <p>The queueing delay is measured ({@link PathDelay#queueDelayNanos}) but does not steer the
 * window: a delay target of a tenth of the RTT shrank windows on the emulated shared link below
 * what the link needed (a download at 13-47 % of the link), since a queue the stream did not
 * build, or a busy host's scheduling delay, kept it above the target. bench/link.sh measures both.
 *
 * <h3>Invariant</h3>
 * The window never exceeds GAIN x maxRate x minRTT after a round: what the measured rate pays for.
 *
 * <p>Not thread-safe: used only on the session's event loop, by one {@link ReceiveWindow}.
 */
final class WindowControl {
    /** A round lasts at least this, so a loopback path still gets a useful window. */
    static final long RTT_FLOOR_NANOS = 2_000_000L;
    /**
     * Window over maxRate x min RTT: above 1 by what a data round trip takes beyond a ping's (a
     * read's serialisation at the bottleneck, credit waiting to be returned).
     */
    static final double GAIN = 1.5;
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
        return decide(rtt);
    }

    private void endRound(long elapsed) {
        rate = (double) roundBytes / elapsed;
        rates[nextRate] = rate;
        nextRate = (nextRate + 1) % RATE_ROUNDS;
        newRound = true;
    }

    private int decide(long rtt) {
        double maxRate = 0;
        for (double r : rates) {
            maxRate = Math.max(maxRate, r);
        }
        return (int) Math.min(Integer.MAX_VALUE, GAIN * maxRate * rtt);
    }
}
