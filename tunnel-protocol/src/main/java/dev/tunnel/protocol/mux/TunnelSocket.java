package dev.tunnel.protocol.mux;

import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.uring.IoUringChannelOption;

/**
 * Keeps the queues below the {@link FrameScheduler} short, so that it decides what goes next
 * instead of a FIFO buffer: a sparse stream's frame waits behind at most
 * {@link #WATER_MARK}'s high mark plus {@link #DEFAULT_NOTSENT_LOWAT} of other streams' DATA
 * (about 96 KiB, 15 ms at 50 Mbit/s) in this process and its kernel.
 *
 * <ul>
 *   <li>The kernel's unsent queue: {@code TCP_NOTSENT_LOWAT} (epoll and io_uring; the JDK offers
 *       no such option, so NIO goes without) makes the socket take bytes and report writable
 *       only while fewer than {@link #notSentLowat()} bytes wait to be sent. Bytes in flight
 *       (sent, not yet acknowledged) are not limited: the congestion window still fills a long
 *       fat link.
 *   <li>Netty's outbound buffer: a low write watermark, so DATA waits in its stream's queue and
 *       the scheduler hands the connection only what it can take.
 * </ul>
 * {@code -Dtunnel.notsentLowat=BYTES} overrides the kernel limit (0 leaves the kernel's default,
 * for comparisons); it is a benchmark knob, not a configuration key.
 */
final class TunnelSocket {
    static final int DEFAULT_NOTSENT_LOWAT = 32 * 1024;
    /** Outbound buffer marks: the scheduler stops handing DATA over above HIGH. */
    static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(32 * 1024, 64 * 1024);

    private TunnelSocket() {
    }

    static int notSentLowat() {
        return Integer.getInteger("tunnel.notsentLowat", DEFAULT_NOTSENT_LOWAT);
    }

    static void keepQueuesShort(Channel channel) {
        ChannelConfig config = channel.config();
        config.setWriteBufferWaterMark(WATER_MARK);
        long lowat = notSentLowat();
        if (lowat > 0 && !config.setOption(EpollChannelOption.TCP_NOTSENT_LOWAT, lowat)) {
            config.setOption(IoUringChannelOption.TCP_NOTSENT_LOWAT, lowat);
        }
    }
}
