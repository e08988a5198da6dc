package dev.tunnel.bench;

import io.netty.util.concurrent.EventExecutor;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Counters and the round-trip histogram of one event loop of {@link LongConnLoad}. Written only
 * on that loop; {@link #collect} copies every loop's figures on the loop itself and merges the
 * raw histograms.
 */
final class LoadStats {
    /** Round trips in microseconds, 1 us to 10 min, 3 significant digits. */
    static Histogram newHistogram() {
        return new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    }

    long sent;
    long received;
    long duplicated;
    long outOfOrder;
    long corrupt;
    long connectFailed;
    long closedEarly;
    boolean closing;
    String firstError = "";
    private final Histogram rtt = newHistogram();
    final LateTimeline late;

    /** @param seconds seconds of sending the late-message timeline keeps apart */
    LoadStats(int seconds) {
        late = new LateTimeline(seconds);
    }

    void recordRtt(long nanos) {
        rtt.recordValue(Math.min(rtt.getHighestTrackableValue(), Math.max(1, nanos / 1000)));
    }

    void connectFailed(Throwable cause) {
        connectFailed++;
        error(cause);
    }

    void error(Throwable cause) {
        if (firstError.isEmpty()) {
            firstError = String.valueOf(cause);
        }
    }

    /** Sums of every loop's counters, and one histogram merged from theirs. */
    record Snapshot(long sent, long received, long duplicated, long outOfOrder, long corrupt, long connectFailed,
                    long closedEarly, String firstError, Histogram rtt, int histograms, LateTimeline late) {
        long lost() {
            return sent - received;
        }

        boolean allAnswered() {
            return received >= sent;
        }
    }

    static Snapshot collect(Map<EventExecutor, LoadStats> perLoop, int seconds) {
        long[] c = new long[7];
        String[] err = {""};
        Histogram merged = newHistogram();
        LateTimeline late = new LateTimeline(seconds);
        for (var e : perLoop.entrySet()) {
            LoadStats s = e.getValue();
            e.getKey().submit(() -> {
                c[0] += s.sent;
                c[1] += s.received;
                c[2] += s.duplicated;
                c[3] += s.outOfOrder;
                c[4] += s.corrupt;
                c[5] += s.connectFailed;
                c[6] += s.closedEarly;
                if (err[0].isEmpty()) {
                    err[0] = s.firstError;
                }
                merged.add(s.rtt);
                s.late.addTo(late);
            }).syncUninterruptibly();
        }
        return new Snapshot(c[0], c[1], c[2], c[3], c[4], c[5], c[6], err[0], merged, perLoop.size(), late);
    }

    /** Marks the end of the run: closes from now on are ours, not failures. */
    static void closing(Map<EventExecutor, LoadStats> perLoop) {
        for (var e : perLoop.entrySet()) {
            e.getKey().submit(() -> e.getValue().closing = true).syncUninterruptibly();
        }
    }
}
