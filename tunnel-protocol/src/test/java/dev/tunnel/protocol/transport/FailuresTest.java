package dev.tunnel.protocol.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class FailuresTest {

    @Test
    void aRefusedConnectSaysConnectionRefusedByTheTargetOnEpollAndNio() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort();
        }
        String target = "127.0.0.1:" + closed;
        assertThat(refusal(NioIoHandler.newFactory(), NioSocketChannel.class, closed, target))
                .isEqualTo("connection refused by " + target);
        if (Epoll.isAvailable()) {
            assertThat(refusal(EpollIoHandler.newFactory(), EpollSocketChannel.class, closed, target))
                    .isEqualTo("connection refused by " + target);
        }
    }

    @Test
    void otherFailuresKeepTheirMessage() {
        assertThat(Failures.describeConnect(new java.io.IOException("Network is unreachable"), "10.0.0.1:1"))
                .isEqualTo("Network is unreachable");
    }

    private static String refusal(IoHandlerFactory io, Class<? extends Channel> type, int port, String target) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, io);
        try {
            ChannelFuture f = new Bootstrap().group(group).channel(type).handler(new ChannelInboundHandlerAdapter())
                    .connect("127.0.0.1", port).awaitUninterruptibly();
            assertThat(f.isSuccess()).isFalse();
            return Failures.describeConnect(f.cause(), target);
        } finally {
            group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
