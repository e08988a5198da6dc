package dev.tunnel.bench;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Late round trips (over {@link #LATE_MILLIS} ms) per second of sending, by when the message was
 * sent: a percentile says how long the tail is, this says when it happened (one burst, a stall of
 * every connection at once, or spread over the run), which is what tells a pause from a slow path.
 *
 * <p>Threading: one per event loop of {@link LongConnLoad}, written on that loop; {@link #addTo}
 * runs on the loop that owns {@code this}.
 */
final class LateTimeline {
    static final long LATE_MILLIS = 100;
    private static final long LATE_NANOS = TimeUnit.MILLISECONDS.toNanos(LATE_MILLIS);

    private final long[] count;
    private final long[] worstMicros;

    /** @param seconds how many seconds of sending to keep apart; later messages count in the last second */
    LateTimeline(int seconds) {
        count = new long[Math.max(1, seconds)];
        worstMicros = new long[count.length];
    }

    /**
     * Counts a round trip if it was late; {@code secondOfRun} is when its message was sent. The
     * first message of each connection, sent while the others were still connecting (negative),
     * is not counted: its round trip includes the connection set-up.
     */
    void record(long secondOfRun, long rttNanos) {
        if (rttNanos <= LATE_NANOS || secondOfRun < 0) {
            return;
        }
        int i = (int) Math.min(count.length - 1, secondOfRun);
        count[i]++;
        worstMicros[i] = Math.max(worstMicros[i], rttNanos / 1000);
    }

    void addTo(LateTimeline total) {
        for (int i = 0; i < count.length && i < total.count.length; i++) {
            total.count[i] += count[i];
            total.worstMicros[i] = Math.max(total.worstMicros[i], worstMicros[i]);
        }
    }

    long total() {
        long n = 0;
        for (long c : count) {
            n += c;
        }
        return n;
    }

    /** One line: "late round trips (over 100 ms) by second of sending: none", or each second that had some. */
    String report() {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "late round trips (over %d ms) by second of sending (second: count, worst ms):", LATE_MILLIS));
        if (total() == 0) {
            return b.append(" none").toString();
        }
        for (int i = 0; i < count.length; i++) {
            if (count[i] > 0) {
                b.append(String.format(Locale.ROOT, " %d: %d, %.0f;", i, count[i], worstMicros[i] / 1000.0));
            }
        }
        b.setLength(b.length() - 1);
        return b.toString();
    }
}
