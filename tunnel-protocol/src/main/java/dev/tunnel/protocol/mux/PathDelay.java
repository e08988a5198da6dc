package dev.tunnel.protocol.mux;

/**
 * The round-trip delay of a session's path as its pings see it: the base delay (the path without
 * a queue), the latest sample, and so how much queue stands in the path now. A pong travels
 * behind the DATA the peer has already written, in its socket and in the network, so the latest
 * sample's excess over the base is the queue that a stream's bytes, and every other stream's,
 * wait in. Each sample steers the session's {@link WindowGain}; {@link WindowControl} sizes
 * windows from the base delay and that gain.
 *
 * <p>The base delay is the smallest sample of the last {@link #BASE_HISTORY} minutes (LEDBAT's
 * base delay history, RFC 6817): a route that got longer raises it within that time, instead of
 * reading as a standing queue forever.
 *
 * <p>Threading: one writer, the session's event loop ({@link #onSample}); read on that loop by
 * its streams, and fields are volatile so that a dashboard reads them whole.
 */
final class PathDelay {
    /** Minutes of per-minute minima the base delay is taken over. */
    static final int BASE_HISTORY = 10;
    static final long MINUTE_NANOS = 60_000_000_000L;

    private final WindowGain gain;
    private final long[] minuteMinima = new long[BASE_HISTORY];
    private int minute;
    private long minuteStartNanos;
    private volatile long baseNanos;
    private volatile long latestNanos;
    private volatile int samples;

    PathDelay() {
        this(new WindowGain());
    }

    PathDelay(WindowGain gain) {
        this.gain = gain;
    }

    /** A ping sent at {@code nowNanos - rttNanos} came back now. */
    void onSample(long rttNanos, long nowNanos) {
        long rtt = Math.max(rttNanos, 1);
        if (samples == 0) {
            minuteStartNanos = nowNanos;
        } else if (nowNanos - minuteStartNanos >= MINUTE_NANOS) {
            minute = (minute + 1) % BASE_HISTORY;
            minuteMinima[minute] = 0;
            minuteStartNanos = nowNanos;
        }
        if (minuteMinima[minute] == 0 || rtt < minuteMinima[minute]) {
            minuteMinima[minute] = rtt;
        }
        long base = Long.MAX_VALUE;
        for (long m : minuteMinima) {
            if (m > 0) {
                base = Math.min(base, m);
            }
        }
        baseNanos = base;
        latestNanos = rtt;
        samples++; // single writer
        gain.onSample(queueDelayNanos(), base, nowNanos);
    }

    /** The path's round trip without a queue (the base delay), or 0 before the first sample. */
    long minRttNanos() {
        return baseNanos;
    }

    /** How far the latest sample is above the base delay: the queue standing in the path; 0 before any sample. */
    long queueDelayNanos() {
        return Math.max(0, latestNanos - baseNanos);
    }

    /** The session's window gain, which these samples steer. */
    WindowGain gain() {
        return gain;
    }

    /** Samples taken so far: a reader acts on each new one once. */
    int samples() {
        return samples;
    }
}
