package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What waits below the frame scheduler on a real tunnel socket: at most 32 KiB unsent in the
 * kernel and 64 KiB in Netty's outbound buffer, so a sparse stream's frame waits behind about
 * 96 KiB of a download's DATA, not the megabytes a socket buffer holds.
 */
@Timeout(20)
class TunnelSocketTest {

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
            TunnelSocket.keepQueuesShort(tunnel);

            assertThat(tunnel.config().getOption(EpollChannelOption.TCP_NOTSENT_LOWAT)).isEqualTo(32 * 1024L);
            assertThat(tunnel.config().getWriteBufferHighWaterMark()).isEqualTo(64 * 1024);
            assertThat(tunnel.config().getWriteBufferLowWaterMark()).isEqualTo(32 * 1024);
            tunnel.close().sync();
            listener.close().sync();
        } finally {
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).sync();
        }
    }
}
