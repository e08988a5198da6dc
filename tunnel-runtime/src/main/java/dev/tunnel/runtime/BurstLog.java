package dev.tunnel.runtime;

import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Logs a recurring failure once per burst: the first occurrence at once, later ones folded
 * into one line with a count once the quiet period has passed. Thread-safe (work connections
 * of one proxy may run on different loops, and so may the public connections of a vhost).
 */
public final class BurstLog {
    private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Logger log;
    private long windowStart = Long.MIN_VALUE;
    private int suppressed;

    public BurstLog(Logger log) {
        this.log = log;
    }

    public synchronized void warn(String message, Object... args) {
        long now = System.nanoTime();
        if (windowStart != Long.MIN_VALUE && now - windowStart < QUIET_NANOS) {
            suppressed++;
            return;
        }
        if (suppressed > 0) {
            log.warn("(the failure below also happened {} more times in the last burst)", suppressed);
            suppressed = 0;
        }
        windowStart = now;
        log.warn(message, args);
    }
}
