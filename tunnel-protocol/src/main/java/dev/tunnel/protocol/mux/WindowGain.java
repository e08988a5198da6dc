package dev.tunnel.protocol.mux;

import java.util.Arrays;

/**
 * How far the windows of a session's streams reach beyond what their rates need over the path's
 * base delay ({@link WindowControl}: window = gain x rate x min RTT), adapted once per round so
 * that the queue the session's own bytes keep standing in the path stays near a target of a few
 * milliseconds ({@link #targetNanos()}).
 *
 * <h3>Control law</h3>
 * A round lasts one base RTT. Its standing queue is the smallest queueing delay the round's pings
 * saw ({@link PathDelay#queueDelayNanos}): the minimum drops a busy host's scheduling delay and a
 * burst's passing queue, as LEDBAT's current-delay filter does, and the smallest of the last
 * {@link #FILTER_ROUNDS} rounds is the standing queue. Windows that keep q seconds of queue
 * standing hold about q x rate bytes more than the path needs; lowering the gain by q / minRTT
 * takes exactly those out. So each round moves the gain by a part ({@link #DOWN_RESPONSE},
 * {@link #UP_RESPONSE}) of (target - standing queue) / minRTT, by at most {@link #MAX_STEP},
 * within [{@link #MIN}, {@link #MAX}]. The gain grows only while a stream's rate is bound by its
 * window ({@link #windowLimited}, reported by {@link WindowControl}): an empty queue behind streams
 * that have no more to send, or a consumer slower than the path, says nothing about how far windows
 * should reach (as TCP's congestion window validation, RFC 7661, grows no window an application
 * does not fill), and a gain grown then would let the next download stand a long queue.
 *
 * <p>The gain is learned, not fixed, because the loop a window must cover is longer than a
 * ping's round trip by what the path does not show: credit held back for batching
 * ({@link ReceiveWindow#UPDATE_FRACTION}), a busy host's scheduling delay. A fixed gain small
 * enough for a short queue starves the stream when that loop is long (a download at 31 % of the
 * link at gain 1.1 on a loaded machine); here, while the queue stays under the target, the gain
 * grows until the link is full and the queue appears.
 *
 * <p>One gain per session: every stream of the session sees the same queue, so one decision
 * serves them all, and each stream takes its part of the windows in proportion to its rate; four
 * downloads settle at the same queue as one.
 *
 * <h3>Invariant</h3>
 * {@link #MIN} <= gain <= {@link #MAX}.
 *
 * <p>Not thread-safe: written by {@link PathDelay#onSample} and read by the streams' window
 * control, all on the session's event loop.
 */
final class WindowGain {
    /** Where the gain starts: room for the credit loop before any queue was seen. */
    static final double START = 1.5;
    /** Windows never go below what the measured rate needs over the base delay. */
    static final double MIN = 1.0;
    /** A host slower than the path still gets a full link. */
    static final double MAX = 2.5;
    /**
     * Part of a round's excess queue taken out per round: below one half, since the queue
     * answers a change a round or more later.
     */
    static final double DOWN_RESPONSE = 0.3;
    /** Part of a round's shortfall made up per round: a link left idle costs more than a short queue. */
    static final double UP_RESPONSE = 1.0;
    /** Rounds whose smallest queueing delay is the standing queue: a busy host's delays rarely last that long. */
    static final int FILTER_ROUNDS = 3;
    /** Largest change of the gain in one round. */
    static final double MAX_STEP = 0.1;
    /**
     * Default standing-queue target; {@code -Dtunnel.queueTargetMicros} overrides it (a benchmark
     * knob). The queue saws above it by a credit batch and the host's delays, so the mean a request
     * waits is several milliseconds more.
     */
    static final long DEFAULT_TARGET_NANOS = 4_000_000L;

    private final long targetNanos;
    private double gain = START;
    private long roundStartNanos;
    private long roundMinQueueNanos = Long.MAX_VALUE;
    /** The smallest queueing delay of each of the last rounds. */
    private final long[] minima = new long[FILTER_ROUNDS];
    private int next;
    /** Whether a stream reported that its window bound its rate, and when it last did. */
    private boolean limited;
    private long limitedNanos;

    WindowGain() {
        this(Long.getLong("tunnel.queueTargetMicros", DEFAULT_TARGET_NANOS / 1000) * 1000);
    }

    WindowGain(long targetNanos) {
        this.targetNanos = targetNanos;
        Arrays.fill(minima, Long.MAX_VALUE);
    }

    /** A ping saw {@code queueNanos} of queue on a path whose base delay is {@code minRttNanos}. */
    void onSample(long queueNanos, long minRttNanos, long nowNanos) {
        roundMinQueueNanos = Math.min(roundMinQueueNanos, queueNanos);
        long round = Math.max(minRttNanos, WindowControl.RTT_FLOOR_NANOS);
        if (nowNanos - roundStartNanos < round) {
            return;
        }
        minima[next] = roundMinQueueNanos;
        next = (next + 1) % FILTER_ROUNDS;
        long standing = Long.MAX_VALUE;
        for (long m : minima) {
            standing = Math.min(standing, m);
        }
        double error = (double) (targetNanos - standing) / round;
        if (error > 0 && !(limited && nowNanos - limitedNanos <= 2 * round)) {
            error = 0; // no stream wanted more window: nothing says the gain is too small
        }
        double step = Math.max(-MAX_STEP, Math.min(MAX_STEP, (error > 0 ? UP_RESPONSE : DOWN_RESPONSE) * error));
        gain = Math.max(MIN, Math.min(MAX, gain + step));
        roundStartNanos = nowNanos;
        roundMinQueueNanos = Long.MAX_VALUE;
    }

    /** A stream's rate over its last round was bound by its window: a queue under the target may grow the gain. */
    void windowLimited(long nowNanos) {
        limited = true;
        limitedNanos = nowNanos;
    }

    double gain() {
        return gain;
    }

    long targetNanos() {
        return targetNanos;
    }
}
