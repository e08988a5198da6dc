package dev.tunnel.protocol.mux;

import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.uring.IoUringChannelOption;

/**
 * Keeps the queues below the {@link FrameScheduler} short in time, so that it decides what goes
 * next instead of a FIFO buffer: a sparse stream's frame waits behind at most the limit of DATA
 * in the kernel and the limit plus {@link #MIN_LIMIT} in this process: about twice
 * {@link #DRAIN_NANOS} on a fast path, and 96 KiB (15 ms at 50 Mbit/s) on a path slower than
 * about 64 Mbit/s, where the limit is its minimum.
 *
 * <ul>
 *   <li>The kernel's unsent queue: {@code TCP_NOTSENT_LOWAT} (epoll and io_uring; the JDK offers
 *       no such option, so NIO goes without) makes the socket take bytes and report writable
 *       only while fewer than the limit wait to be sent. Bytes in flight (sent, not yet
 *       acknowledged) are not limited: the congestion window still fills a long fat link.
 *   <li>Netty's outbound buffer: watermarks of {@link #MIN_LIMIT} and the limit plus that, so
 *       DATA waits in its stream's queue and the scheduler hands the connection only what the
 *       kernel will take next.
 * </ul>
 *
 * <h3>Sizing</h3>
 * The limit is what the connection drains in {@link #DRAIN_NANOS} at the smallest rate of its last
 * {@link #SAMPLES} periods of {@link #SAMPLE_NANOS}, within {@link #MIN_LIMIT} and {@link #MAX_LIMIT}:
 * a fast path takes bytes in writes of hundreds of KiB, not one system call, wake-up and
 * WINDOW_UPDATE per 40 KiB. Not the latest rate: a slow link's socket takes a credit burst at many
 * times the link's rate, and those bytes would delay the pongs the peer sizes its windows by.
 *
 * <p>{@code -Dtunnel.notsentLowat=BYTES} fixes the kernel limit (0 leaves the kernel's default,
 * for comparisons); it is a benchmark knob, not a configuration key.
 *
 * <p>Threading: the session's event loop only.
 */
final class TunnelSocket {
    static final int MIN_LIMIT = 32 * 1024;
    static final int MAX_LIMIT = 256 * 1024;
    /** How long the bytes below the scheduler may take to drain: window control's queue target. */
    static final long DRAIN_NANOS = WindowGain.DEFAULT_TARGET_NANOS;
    /** The shortest period a rate is measured over. */
    static final long SAMPLE_NANOS = 10_000_000L;
    /** Periods whose smallest rate sizes the limit: a fast path must stay fast for 80 ms. */
    static final int SAMPLES = 8;
    /** A new limit within this factor of the current one is not applied (one system call each). */
    private static final double HYSTERESIS = 1.25;

    private final Channel channel;
    private final int fixedLowat = Integer.getInteger("tunnel.notsentLowat", -1);
    private int limit;
    /** The limits the last {@link #SAMPLES} periods' rates call for, oldest overwritten first. */
    private final int[] wanted = new int[SAMPLES];
    private int next;
    private long sampleStartNanos;
    private long sampleBytes;

    TunnelSocket(Channel channel) {
        this.channel = channel;
    }

    /** Sets the limits for a path of unknown rate: the minimum. */
    void start(long nowNanos) {
        sampleStartNanos = nowNanos;
        java.util.Arrays.fill(wanted, MIN_LIMIT);
        apply(MIN_LIMIT);
    }

    /** The connection took {@code bytes} of DATA at {@code nowNanos}: resizes the limits once per sample. */
    void sent(int bytes, long nowNanos) {
        sampleBytes += bytes;
        long elapsed = nowNanos - sampleStartNanos;
        if (elapsed < SAMPLE_NANOS) {
            return;
        }
        wanted[next] = limitFor(sampleBytes, elapsed);
        next = (next + 1) % SAMPLES;
        sampleStartNanos = nowNanos;
        sampleBytes = 0;
        int sustained = Integer.MAX_VALUE;
        for (int w : wanted) {
            sustained = Math.min(sustained, w);
        }
        if (sustained > limit * HYSTERESIS || sustained * HYSTERESIS < limit) {
            apply(sustained);
        }
    }

    /** The limit for a connection that carried {@code bytes} in {@code nanos}. */
    static int limitFor(long bytes, long nanos) {
        return (int) Math.max(MIN_LIMIT, Math.min(MAX_LIMIT, bytes * DRAIN_NANOS / nanos));
    }

    int limit() {
        return limit;
    }

    private void apply(int newLimit) {
        limit = newLimit;
        ChannelConfig config = channel.config();
        config.setWriteBufferWaterMark(new WriteBufferWaterMark(MIN_LIMIT, newLimit + MIN_LIMIT));
        long lowat = fixedLowat >= 0 ? fixedLowat : newLimit;
        if (lowat > 0 && !config.setOption(EpollChannelOption.TCP_NOTSENT_LOWAT, lowat)) {
            config.setOption(IoUringChannelOption.TCP_NOTSENT_LOWAT, lowat);
        }
    }
}
