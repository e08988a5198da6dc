package dev.tunnel.server.vhost;

import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;

/**
 * Logs a recurring failure once per burst: the first at once, later ones within the quiet period
 * folded into one count that the next line reports. One per failure kind and proxy, so a flood
 * of 502s for one proxy is one line every 10 s. Thread-safe.
 */
final class BurstLog {
    private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Logger log;
    private long windowStart = Long.MIN_VALUE;
    private int suppressed;

    BurstLog(Logger log) {
        this.log = log;
    }

    synchronized void warn(String message, Object... args) {
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
