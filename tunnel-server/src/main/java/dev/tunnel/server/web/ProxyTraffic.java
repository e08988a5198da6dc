package dev.tunnel.server.web;

import java.time.LocalDate;

/**
 * One proxy's traffic history on the server, from its cumulative counts sampled now and then
 * (each API read, each close, the server's timer): bytes per day for the last
 * {@value DailyTraffic#DAYS} days, as frp keeps them, and bytes per minute for the last hour,
 * which the dashboard charts. Each sample also adds the proxy's new bytes to the server-wide
 * history, so that one counts every byte once, however often the proxy is read.
 *
 * <p>Memory: about 1 KiB a proxy. Not thread-safe: {@link ServerStats} guards it.
 */
final class ProxyTraffic {
    static final int MINUTE = 60;
    static final int MINUTES = 60;

    private final DailyTraffic dayIn;
    private final DailyTraffic dayOut;
    private final RateHistory lastHour = new RateHistory(MINUTE, MINUTES);
    private long seenIn;
    private long seenOut;

    ProxyTraffic(LocalDate today) {
        dayIn = new DailyTraffic(today, 0);
        dayOut = new DailyTraffic(today, 0);
    }

    /** Records the cumulative counts seen at {@code epochSecond}, adding what is new to {@code server} too. */
    void sample(LocalDate today, long epochSecond, long totalIn, long totalOut, RateHistory server) {
        dayIn.sample(today, totalIn);
        dayOut.sample(today, totalOut);
        long newIn = Math.max(0, totalIn - seenIn);
        long newOut = Math.max(0, totalOut - seenOut);
        seenIn = totalIn;
        seenOut = totalOut;
        if (newIn != 0 || newOut != 0) {
            lastHour.add(epochSecond, newIn, newOut);
            server.add(epochSecond, newIn, newOut);
        }
    }

    /** The counts restarted at {@code totalIn}/{@code totalOut} (a proxy opened again): later samples count from there. */
    void rebase(long totalIn, long totalOut) {
        dayIn.rebase(totalIn);
        dayOut.rebase(totalOut);
        seenIn = totalIn;
        seenOut = totalOut;
    }

    long todayIn() {
        return dayIn.today();
    }

    long todayOut() {
        return dayOut.today();
    }

    /** Bytes per day, today first: {in, out}. */
    long[][] lastDays() {
        return new long[][] {dayIn.lastDays(), dayOut.lastDays()};
    }

    /** Bytes per second of each minute of the last hour, oldest first: {in, out}. */
    double[][] lastHour(long epochSecond) {
        return lastHour.perSecond(epochSecond);
    }
}
