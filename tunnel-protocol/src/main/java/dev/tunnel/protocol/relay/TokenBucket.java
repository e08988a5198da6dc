package dev.tunnel.protocol.relay;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A token bucket: {@link #rate()} tokens a second, holding at most {@code burst} (for bytes, one
 * second's worth, frp's burst). Readers {@linkplain #consume take} bytes they read after the
 * fact, which may put the bucket in debt by one read; {@link #waitNanos()} says how long until it
 * is out of debt. Admissions (a connection, a handshake) {@linkplain #tryTake take one token} or
 * are refused. Invariant: {@code tokens <= burst}; a negative balance is a debt to be refilled
 * before the next read.
 *
 * <p>Thread-safe: one bucket is shared by every connection of a proxy, on any event loop.
 */
public final class TokenBucket {
    private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

    private final long rate;
    private final long burst;
    private final LongSupplier clock;
    private double tokens;
    private long lastNanos;

    /** @param rate bytes per second, > 0 */
    public TokenBucket(long rate) {
        this(rate, System::nanoTime);
    }

    /** @param clock nanoseconds, as {@link System#nanoTime()} (tests pass their own) */
    public TokenBucket(long rate, LongSupplier clock) {
        this(rate, rate, clock);
    }

    /**
     * @param rate  tokens per second, > 0
     * @param burst most tokens held, and held at the start, > 0
     * @param clock nanoseconds, as {@link System#nanoTime()} (tests pass their own)
     */
    public TokenBucket(long rate, long burst, LongSupplier clock) {
        if (rate <= 0) {
            throw new IllegalArgumentException("rate: " + rate + " (expected: > 0)");
        }
        if (burst <= 0) {
            throw new IllegalArgumentException("burst: " + burst + " (expected: > 0)");
        }
        this.rate = rate;
        this.burst = burst;
        this.clock = clock;
        this.tokens = burst;
        this.lastNanos = clock.getAsLong();
    }

    public long rate() {
        return rate;
    }

    /** Takes {@code bytes} that were just read; the balance may go negative. */
    public synchronized void consume(long bytes) {
        refill();
        tokens -= bytes;
    }

    /**
     * Takes {@code bytes} unless the bucket is in debt; returns whether it did. For what cannot
     * wait (a datagram is dropped when refused): like {@link #consume}, one taken message may put
     * the bucket in debt.
     */
    public synchronized boolean tryConsume(long bytes) {
        refill();
        if (tokens < 0) {
            return false;
        }
        tokens -= bytes;
        return true;
    }

    /** Takes one token if the bucket holds one; returns whether it did. */
    public synchronized boolean tryTake() {
        refill();
        if (tokens < 1) {
            return false;
        }
        tokens -= 1;
        return true;
    }

    /** Nanoseconds until the balance is no longer negative; 0 when a read may go ahead now. */
    public synchronized long waitNanos() {
        return waitNanosFor(0);
    }

    /** Nanoseconds until {@code n} more tokens could be taken without a negative balance; 0 = now. */
    public synchronized long waitNanosFor(long n) {
        refill();
        double after = tokens - n;
        if (after >= 0) {
            return 0;
        }
        return (long) Math.ceil(-after * NANOS_PER_SECOND / rate);
    }

    private void refill() {
        long now = clock.getAsLong();
        long elapsed = now - lastNanos;
        if (elapsed > 0) {
            tokens = Math.min(burst, tokens + (double) elapsed * rate / NANOS_PER_SECOND);
            lastNanos = now;
        }
    }
}
