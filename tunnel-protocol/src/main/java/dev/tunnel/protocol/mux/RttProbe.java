package dev.tunnel.protocol.mux;

import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The round trip of the session's connection, from its pings: a smoothed value for dashboards,
 * and the {@link PathDelay} (base delay, queue standing in the path) that {@link WindowControl}
 * sizes windows by. While streams carry data it pings every {@link #BUSY_PROBE_MILLIS}, so that
 * window control sees a queue build within a few round trips; once no stream has carried data for
 * {@link #QUIET_PROBES} periods in a row it is idle, and looks once per {@link #IDLE_PROBE_MILLIS}.
 * (A busy stream's frames are up to a frame's size apart: at a few MB/s, one period in two may
 * carry none.) On a path too short for the queue to move a window
 * ({@link WindowControl#queueMovesWindows}: loopback, a LAN) a busy session pings once per
 * {@link #IDLE_PROBE_MILLIS}: there a hundred pings and pongs a second each way cost CPU and
 * steer nothing.
 *
 * <p>Threading: written on the session's event loop; {@link #rttNanos()} and
 * {@link #minRttNanos()} may be read from any thread.
 */
final class RttProbe {
    private static final Logger log = LoggerFactory.getLogger(MuxSession.class);
    static final long IDLE_PROBE_MILLIS = 1000;
    static final long BUSY_PROBE_MILLIS = 10;
    /** Periods without data after which the session counts as idle. */
    static final int QUIET_PROBES = 10;
    private static final long MAX_SAMPLE_NANOS = TimeUnit.MINUTES.toNanos(2);

    private final Runnable ping;
    private final PathDelay delay = new PathDelay();
    private Channel channel;
    private ScheduledFuture<?> timer;
    private boolean carriedData;
    /** Busy periods in a row that carried no data. */
    private int quietProbes = QUIET_PROBES;
    private volatile long rttNanos;

    /** @param ping sends one ping through the session */
    RttProbe(Runnable ping) {
        this.ping = ping;
    }

    void start(Channel channel) {
        this.channel = channel;
        timer = channel.eventLoop().schedule(this::probe, IDLE_PROBE_MILLIS, TimeUnit.MILLISECONDS);
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
        if (!channel.isActive()) {
            return;
        }
        quietProbes = carriedData ? 0 : Math.min(QUIET_PROBES, quietProbes + 1);
        carriedData = false;
        boolean busy = quietProbes < QUIET_PROBES;
        if (busy) {
            ping.run();
        }
        boolean often = busy && WindowControl.queueMovesWindows(delay.minRttNanos());
        timer = channel.eventLoop().schedule(this::probe, often ? BUSY_PROBE_MILLIS : IDLE_PROBE_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    /** The pong of a ping sent at {@code sentNanos} came back. */
    void onPong(long sentNanos) {
        long now = System.nanoTime();
        long sample = now - sentNanos;
        if (sample < 0 || sample >= MAX_SAMPLE_NANOS) {
            return; // not one of ours
        }
        long rtt = rttNanos == 0 ? sample : (7 * rttNanos + sample) / 8;
        rttNanos = rtt;
        delay.onSample(sample, now);
        if (log.isDebugEnabled()) {
            log.debug("{} ping RTT {} us (smoothed {} us)", channel, sample / 1000, rtt / 1000);
        }
    }

    long rttNanos() {
        return rttNanos;
    }

    /** The path's round trip without a queue: see {@link PathDelay#minRttNanos()}. */
    long minRttNanos() {
        return delay.minRttNanos();
    }

    PathDelay pathDelay() {
        return delay;
    }
}
