package dev.tunnel.runtime;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A token bucket for log lines that come once per event (a public connection closing), so a
 * flood cannot fill the disk: up to {@code burst} lines at once, refilled at {@code burst} per
 * {@code refill} period. Lines over budget are counted; the next line let through first reports
 * how many were left out. Thread-safe (connections close on every event loop); a call holds the
 * lock for a few arithmetic operations.
 */
public final class LineBudget {
    private final int burst;
    private final double tokensPerNano;
    private final LongSupplier clock;
    private double tokens;
    private long last;
    private long suppressed;

    /** {@code burst} lines, refilled over {@code refillSeconds}, on {@link System#nanoTime()}. */
    public LineBudget(int burst, int refillSeconds) {
        this(burst, refillSeconds, System::nanoTime);
    }

    LineBudget(int burst, int refillSeconds, LongSupplier clock) {
        this.burst = burst;
        this.tokensPerNano = burst / (double) TimeUnit.SECONDS.toNanos(refillSeconds);
        this.clock = clock;
        this.tokens = burst;
        this.last = clock.getAsLong();
    }

    /**
     * Whether a line may be logged now: -1 when not (counted as left out), else how many lines
     * were left out since the last one let through (to report first when above 0).
     */
    public synchronized long take() {
        long now = clock.getAsLong();
        tokens = Math.min(burst, tokens + (now - last) * tokensPerNano);
        last = now;
        if (tokens < 1) {
            suppressed++;
            return -1;
        }
        tokens--;
        long left = suppressed;
        suppressed = 0;
        return left;
    }
}
