package dev.tunnel.server.web;

/**
 * Bytes in and out per time slot over the last {@code slots x step} seconds: bytes added at a
 * time go into the slot of that time, so callers that add more often than {@code step} lose
 * nothing and the chart of the last hour is on the server, whoever watches it.
 *
 * <p>Invariant: slot {@code t / step % slots} holds the bytes counted in step {@code t / step}
 * when {@code t / step} lies within the last {@code slots} steps of the latest sample; older
 * steps are cleared before their slot is reused. Memory: two {@code long[slots]}.
 *
 * <p>Not thread-safe: {@link ServerStats} guards it with its lock.
 */
final class RateHistory {
    private final int step;
    private final long[] in;
    private final long[] out;
    /** The step of the latest addition or read, -1 before the first. */
    private long lastStep = -1;

    /** {@code slots} steps of {@code step} seconds. */
    RateHistory(int step, int slots) {
        if (step <= 0 || slots <= 0) {
            throw new IllegalArgumentException("step and slots must be positive: " + step + ", " + slots);
        }
        this.step = step;
        this.in = new long[slots];
        this.out = new long[slots];
    }

    /** Counts {@code bytesIn} and {@code bytesOut} at {@code epochSecond}. */
    void add(long epochSecond, long bytesIn, long bytesOut) {
        advanceTo(epochSecond / step);
        int slot = slot(lastStep);
        in[slot] += bytesIn;
        out[slot] += bytesOut;
    }

    int step() {
        return step;
    }

    /**
     * Bytes per second of each step up to the one holding {@code epochSecond}, oldest first:
     * {@code {in[], out[]}}, each {@code slots} long. The last step is still filling.
     */
    double[][] perSecond(long epochSecond) {
        advanceTo(epochSecond / step);
        int slots = in.length;
        double[][] rates = new double[2][slots];
        for (int i = 0; i < slots; i++) {
            int slot = slot(lastStep - slots + 1 + i);
            rates[0][i] = (double) in[slot] / step;
            rates[1][i] = (double) out[slot] / step;
        }
        return rates;
    }

    /** Clears the slots of the steps after the latest one seen up to {@code now}. */
    private void advanceTo(long now) {
        if (lastStep < 0) {
            lastStep = now;
            return;
        }
        if (now <= lastStep) {
            return; // a clock that stepped back: count into the latest slot
        }
        long clear = Math.min(now - lastStep, in.length);
        for (long s = now - clear + 1; s <= now; s++) {
            in[slot(s)] = 0;
            out[slot(s)] = 0;
        }
        lastStep = now;
    }

    private int slot(long stepNumber) {
        return (int) Math.floorMod(stepNumber, (long) in.length);
    }
}
