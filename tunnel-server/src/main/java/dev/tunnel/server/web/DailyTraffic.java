package dev.tunnel.server.web;

import java.time.LocalDate;

/**
 * Bytes per day over the last {@value #DAYS} days, from a cumulative count sampled now and then
 * (each API read, each proxy close, a timer): what a sample adds since the previous one is put
 * on the day of the sample. Not thread-safe: {@link ServerStats} guards it.
 */
final class DailyTraffic {
    static final int DAYS = 7;

    private final long[] days = new long[DAYS];
    private long lastDay;
    private long lastTotal;

    DailyTraffic(LocalDate today, long total) {
        this.lastDay = today.toEpochDay();
        this.lastTotal = total;
    }

    /** Records the cumulative {@code total} seen on {@code today}. */
    void sample(LocalDate today, long total) {
        long day = today.toEpochDay();
        long shift = day - lastDay;
        if (shift > 0) {
            int n = (int) Math.min(shift, DAYS);
            System.arraycopy(days, 0, days, n, DAYS - n);
            java.util.Arrays.fill(days, 0, n, 0);
            lastDay = day;
        }
        long delta = total - lastTotal;
        if (delta > 0) {
            days[0] += delta;
        }
        lastTotal = total;
    }

    /** The count source restarted at {@code total} (a proxy opened again): later samples count from there. */
    void rebase(long total) {
        lastTotal = total;
    }

    long today() {
        return days[0];
    }

    /** Bytes per day, today first, as frp's {@code /api/traffic/{name}} lists them. */
    long[] lastDays() {
        return days.clone();
    }
}
