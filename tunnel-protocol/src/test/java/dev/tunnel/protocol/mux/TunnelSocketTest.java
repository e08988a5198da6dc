package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What waits below the frame scheduler on a tunnel socket: on a path of unknown or modest rate at
 * most 32 KiB unsent in the kernel and 64 KiB in Netty's outbound buffer, so a sparse stream's
 * frame waits behind about 96 KiB of a download's DATA, not the megabytes a socket buffer holds;
 * on a fast path what drains in a few milliseconds, so the bytes leave in large writes.
 */
@Timeout(20)
class TunnelSocketTest {
    private static final long MILLISECOND = 1_000_000L;
    /** For the tests that size an embedded channel's limits (the first test has a real epoll socket of its own). */
    private final EmbeddedChannel embedded = new EmbeddedChannel();
    private final TunnelSocket socket = startedOn(embedded);


    @Test
    void aTunnelConnectionKeepsAtMost32KiBUnsentInTheKernelAnd64KiBInItsOutboundBuffer() throws Exception {
        assumeThat(Epoll.isAvailable()).as("epoll").isTrue();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            Channel listener = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter()).bind("127.0.0.1", 0).sync().channel();
            Channel tunnel = new Bootstrap().group(group).channel(EpollSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect((InetSocketAddress) listener.localAddress()).sync().channel();
            TunnelSocket real = new TunnelSocket(tunnel);
            real.start(0);

            assertThat(tunnel.config().getOption(EpollChannelOption.TCP_NOTSENT_LOWAT)).isEqualTo(32 * 1024L);
            assertThat(tunnel.config().getWriteBufferHighWaterMark()).isEqualTo(64 * 1024);
            assertThat(tunnel.config().getWriteBufferLowWaterMark()).isEqualTo(32 * 1024);

            for (int period = 1; period <= TunnelSocket.SAMPLES; period++) {
                real.sent(5 * 1024 * 1024, period * 10 * MILLISECOND); // 500 MB/s: 2 MB drain in 4 ms, capped
            }
            assertThat(tunnel.config().getOption(EpollChannelOption.TCP_NOTSENT_LOWAT)).isEqualTo(256 * 1024L);
            assertThat(tunnel.config().getWriteBufferHighWaterMark()).isEqualTo((256 + 32) * 1024);
            tunnel.close().sync();
            listener.close().sync();
        } finally {
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void aPathSlowerThanAbout64MbitPerSecondKeepsTheMinimumLimits() {
        long now = 0;
        for (int i = 0; i < 100; i++) { // 50 Mbit/s for a second, reported per 1 ms
            now += MILLISECOND;
            socket.sent(6_250, now);
        }

        assertThat(socket.limit()).isEqualTo(TunnelSocket.MIN_LIMIT);
        assertThat(embedded.config().getWriteBufferHighWaterMark()).isEqualTo(64 * 1024);
    }

    @Test
    void theLimitIsWhatTheRateDrainsInFourMillisecondsOnceSustainedAndFollowsItBackDownAtOnce() {
        long now = 0;
        for (int period = 1; period < TunnelSocket.SAMPLES; period++) {
            socket.sent(1_250_000, now += 10 * MILLISECOND); // 125 MB/s (1 Gbit/s): 500 kB
        }
        assertThat(socket.limit()).as("not yet sustained").isEqualTo(TunnelSocket.MIN_LIMIT);
        socket.sent(1_250_000, now += 10 * MILLISECOND);
        assertThat(socket.limit()).as("capped").isEqualTo(TunnelSocket.MAX_LIMIT);

        socket.sent(250_000, now += 10 * MILLISECOND); // 25 MB/s: 100 kB
        assertThat(socket.limit()).isEqualTo(100_000);
        assertThat(embedded.config().getWriteBufferHighWaterMark()).isEqualTo(100_000 + 32 * 1024);
        assertThat(embedded.config().getWriteBufferLowWaterMark()).isEqualTo(32 * 1024);
        socket.sent(90_000, now += 10 * MILLISECOND); // 9 MB/s: 36 kB
        assertThat(socket.limit()).isEqualTo(36_000);
        socket.sent(40_000, now += 10 * MILLISECOND); // 4 MB/s: the minimum, 32 KiB, within 1.25x of 36 kB: kept
        assertThat(socket.limit()).isEqualTo(36_000);
    }

    /** On a 50 Mbit/s link a burst of credit's worth enters the socket in one period at many times the link's rate. */
    @Test
    void burstsOnASlowLinkDoNotRaiseTheLimit() {
        long now = 0;
        for (int period = 1; period <= 100; period++) {
            socket.sent(period % 4 == 0 ? 370_000 : 62_500, now += 10 * MILLISECOND);
        }

        assertThat(socket.limit()).isEqualTo(TunnelSocket.MIN_LIMIT);
    }

    @Test
    void aRateIsMeasuredOverAtLeastTenMilliseconds() {
        socket.sent(1_000_000, MILLISECOND); // a burst in the first millisecond: no period ended yet
        long now = 50 * MILLISECOND;
        socket.sent(0, now); // the period ends: 1 MB in 50 ms, 20 MB/s, 80 kB
        for (int period = 1; period < TunnelSocket.SAMPLES; period++) {
            socket.sent(200_000, now += 10 * MILLISECOND); // 20 MB/s
        }

        assertThat(socket.limit()).isEqualTo(80_000);
    }

    private static TunnelSocket startedOn(EmbeddedChannel channel) {
        TunnelSocket socket = new TunnelSocket(channel);
        socket.start(0);
        return socket;
    }
}
