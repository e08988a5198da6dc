package dev.tunnel.server.proxy;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@code maxNewConnsPerIPPerMinute} of one proxy: how many new public connections one visitor
 * address may open per minute. Each address gets a fixed one-minute window from its first
 * connection; within it, connections beyond the limit are refused, and the next connection after
 * it starts a new window.
 *
 * <h3>Bounds</h3>
 * The table holds at most {@value #MAX_ADDRESSES} addresses (about 160 bytes each: some 650 KiB
 * for a full table), in order of their last connection attempt; a new address beyond that evicts
 * the one quiet the longest, which then starts afresh when it comes back. A flood from many
 * addresses therefore costs bounded memory; an address that keeps trying stays in the table and
 * stays refused. Spreading one attacker over more than {@value #MAX_ADDRESSES} addresses within a
 * minute defeats a per-address limit anyway (that is what {@code maxConnectionsPerProxy} and
 * {@code allowIPs} are for).
 *
 * <p>Thread-safe (synchronized): a proxy's connections arrive on its session's loop, and an
 * stcp proxy's visitors on theirs.
 */
final class NewConnRate {
    static final int MAX_ADDRESSES = 4096;
    static final long WINDOW_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final int perMinute;
    private final LongSupplier nanoClock;
    private final Map<InetAddress, Window> windows = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<InetAddress, Window> eldest) {
            return size() > MAX_ADDRESSES;
        }
    };

    private static final class Window {
        final long start;
        int count;

        Window(long start) {
            this.start = start;
        }
    }

    /**
     * @param perMinute new connections one address may open per minute (1 or more)
     * @param nanoClock {@link System#nanoTime} or a test's clock
     */
    NewConnRate(int perMinute, LongSupplier nanoClock) {
        this.perMinute = perMinute;
        this.nanoClock = nanoClock;
    }

    int perMinute() {
        return perMinute;
    }

    /** Counts a new connection from {@code address}; false when it is beyond the limit (refuse it). */
    synchronized boolean tryAcquire(InetAddress address) {
        long now = nanoClock.getAsLong();
        Window w = windows.get(address);
        if (w == null || now - w.start >= WINDOW_NANOS) {
            w = new Window(now);
            windows.put(address, w);
        }
        if (w.count >= perMinute) {
            return false;
        }
        w.count++;
        return true;
    }

    /** Addresses tracked now. */
    synchronized int size() {
        return windows.size();
    }
}
