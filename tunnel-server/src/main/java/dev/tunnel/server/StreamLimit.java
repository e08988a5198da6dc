package dev.tunnel.server;

import io.netty.channel.Channel;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code transport.maxStreamsPerClient} for one session: whether one more public connection
 * may open, with a refusal logged the first time and then once per 10 s with a count (a flood
 * must not flood the log). Session loop only.
 */
final class StreamLimit {
    private static final Logger log = LoggerFactory.getLogger(StreamLimit.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final int max;
    private long lastLogNanos = Long.MIN_VALUE;
    private int refusedSinceLog;

    /** @param max open public connections allowed; 0 = no limit */
    StreamLimit(int max) {
        this.max = max;
    }

    /** Whether a public connection {@code ch} of proxy {@code proxyName} may open, with {@code open} already open. */
    boolean admit(Channel control, String proxyName, Channel ch, int open) {
        if (max <= 0 || open < max) {
            return true;
        }
        refusedSinceLog++;
        long now = System.nanoTime();
        if (lastLogNanos == Long.MIN_VALUE || now - lastLogNanos >= LOG_INTERVAL_NANOS) {
            log.warn("{} proxy [{}] refused {} public connection(s), latest from {}: the client already has {} open"
                    + " connections (transport.maxStreamsPerClient = {})", control, proxyName, refusedSinceLog,
                    ch.remoteAddress(), open, max);
            lastLogNanos = now;
            refusedSinceLog = 0;
        }
        return false;
    }
}
