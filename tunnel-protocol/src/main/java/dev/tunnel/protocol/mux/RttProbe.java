package dev.tunnel.protocol.mux;

import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The round trip of the session's connection, from its pings: a smoothed value and the minimum,
 * the path's delay without the queueing the tunnel's own traffic adds, which window tuning uses.
 * While streams carry data it pings once per {@link #PROBE_MILLIS}, so the minimum comes from
 * many samples, not one taken while login was still busy.
 *
 * <p>Threading: written on the session's event loop; {@link #rttNanos()} and
 * {@link #minRttNanos()} may be read from any thread.
 */
final class RttProbe {
    private static final Logger log = LoggerFactory.getLogger(MuxSession.class);
    static final long PROBE_MILLIS = 1000;
    private static final long MAX_SAMPLE_NANOS = TimeUnit.MINUTES.toNanos(2);

    private final Runnable ping;
    private Channel channel;
    private ScheduledFuture<?> timer;
    private boolean carriedData;
    private volatile long rttNanos;
    private volatile long minRttNanos;

    /** @param ping sends one ping through the session */
    RttProbe(Runnable ping) {
        this.ping = ping;
    }

    void start(Channel channel) {
        this.channel = channel;
        timer = channel.eventLoop().scheduleAtFixedRate(this::probe, PROBE_MILLIS, PROBE_MILLIS, TimeUnit.MILLISECONDS);
    }

    void stop() {
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** A stream carried data: the next period pings. */
    void carriedData() {
        carriedData = true;
    }

    private void probe() {
        if (carriedData && channel.isActive()) {
            carriedData = false;
            ping.run();
        }
    }

    /** The pong of a ping sent at {@code sentNanos} came back. */
    void onPong(long sentNanos) {
        long sample = System.nanoTime() - sentNanos;
        if (sample < 0 || sample >= MAX_SAMPLE_NANOS) {
            return; // not one of ours
        }
        long rtt = rttNanos == 0 ? sample : (7 * rttNanos + sample) / 8;
        rttNanos = rtt;
        if (minRttNanos == 0 || sample < minRttNanos) {
            minRttNanos = Math.max(sample, 1);
        }
        if (log.isDebugEnabled()) {
            log.debug("{} ping RTT {} us (smoothed {} us)", channel, sample / 1000, rtt / 1000);
        }
    }

    long rttNanos() {
        return rttNanos;
    }

    long minRttNanos() {
        return minRttNanos;
    }
}
