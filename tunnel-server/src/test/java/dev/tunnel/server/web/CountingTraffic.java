package dev.tunnel.server.web;

import java.util.concurrent.atomic.AtomicLong;

/** A proxy's counters that a test sets by hand. */
final class CountingTraffic implements ServerStats.Traffic {
    final AtomicLong in = new AtomicLong();
    final AtomicLong out = new AtomicLong();
    final AtomicLong open = new AtomicLong();

    @Override
    public long bytesIn() {
        return in.get();
    }

    @Override
    public long bytesOut() {
        return out.get();
    }

    @Override
    public long connections() {
        return open.get();
    }
}
