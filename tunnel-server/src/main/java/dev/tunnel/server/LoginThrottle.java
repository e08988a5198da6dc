package dev.tunnel.server;

import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Per-source-address backoff after failed logins: {@code maxFailures} failures within a minute
 * block that address for {@code blockMillis}. Blocked connections are closed on accept, before
 * TLS ({@link ConnectionGate}), so a password-guessing client costs almost nothing. Bounded
 * memory: at most {@value #MAX_TRACKED} addresses are tracked, the one seen least recently
 * dropped first ({@link AddressTable}).
 *
 * <p>Behind a TLS terminator every client has the terminator's address, so one client's
 * failures block all: raise {@code auth.maxFailedLogins} or set it to 0 there.
 *
 * <p>Threading: called from every event loop; synchronized, each call is a few map operations.
 */
final class LoginThrottle {
    static final long WINDOW_MILLIS = TimeUnit.MINUTES.toMillis(1);
    private static final int MAX_TRACKED = 10_000;

    private final int maxFailures;
    private final long blockMillis;
    private final LongSupplier clock;
    private final AddressTable<Entry> entries = new AddressTable<>(MAX_TRACKED);

    private static final class Entry {
        final ArrayDeque<Long> failures = new ArrayDeque<>();
        long blockedUntil;
    }

    LoginThrottle(int maxFailures, long blockMillis, LongSupplier clockMillis) {
        this.maxFailures = maxFailures;
        this.blockMillis = blockMillis;
        this.clock = clockMillis;
    }

    /** Milliseconds {@code address} stays blocked; 0 when it may try. */
    synchronized long blockedFor(InetAddress address) {
        Entry e = entries.get(address);
        if (e == null) {
            return 0;
        }
        return Math.max(0, e.blockedUntil - clock.getAsLong());
    }

    /**
     * Records a failed login from {@code address}.
     *
     * @return true when this failure starts a block (the caller logs it, once)
     */
    synchronized boolean failed(InetAddress address) {
        if (maxFailures <= 0) {
            return false;
        }
        long now = clock.getAsLong();
        Entry e = entries.getOrCreate(address, a -> new Entry());
        while (!e.failures.isEmpty() && now - e.failures.peekFirst() >= WINDOW_MILLIS) {
            e.failures.removeFirst();
        }
        e.failures.addLast(now);
        if (e.failures.size() >= maxFailures && e.blockedUntil <= now) {
            e.blockedUntil = now + blockMillis;
            e.failures.clear();
            return true;
        }
        return false;
    }

    /** A successful login clears the address's failures. */
    synchronized void succeeded(InetAddress address) {
        Entry e = entries.get(address);
        if (e != null && e.blockedUntil <= clock.getAsLong()) {
            entries.remove(address);
        }
    }
}
