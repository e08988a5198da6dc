package dev.tunnel.protocol.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(20)
class HalfCloseTest {

    /**
     * The peer reset the connection before our FIN: the kernel answers the shutdown with ENOTCONN,
     * which Netty reports as a NotYetConnectedException (not an IOException). The caller's
     * continuation must still run, and nothing may escape into the write promise's listener.
     * On io_uring the flush itself completes on the loop, which may learn of the reset first and
     * close the channel; then, as documented, the channel's close is what the caller sees.
     */
    @ParameterizedTest
    @EnumSource(value = Transports.Kind.class, names = {"EPOLL", "IO_URING", "NIO"})
    void aPeerThatResetFirstStillLetsTheCallerGoOn(Transports.Kind kind) throws Exception {
        assumeTrue(kind != Transports.Kind.EPOLL || Epoll.isAvailable(), "epoll not available here");
        assumeTrue(kind != Transports.Kind.IO_URING || IoUring.isAvailable(), "io_uring not available here");
        EventLoopGroup group = Transports.newGroup(kind, 1, "half-close-test");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Channel ch = new Bootstrap().group(group).channel(Transports.socketChannel(kind))
                    .option(ChannelOption.AUTO_READ, false)
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(server.getLocalSocketAddress()).sync().channel();
            Socket peer = server.accept();
            peer.setSoLinger(true, 0);
            CountDownLatch done = new CountDownLatch(1);
            // One task: the loop cannot see the reset before the shutdown (it handles I/O between tasks).
            ch.eventLoop().execute(() -> {
                try {
                    peer.close(); // linger 0: a reset, delivered before close() returns on loopback
                } catch (java.io.IOException e) {
                    throw new IllegalStateException(e);
                }
                HalfClose.shutdownOutputAfterWrites(ch, done::countDown);
            });

            if (kind == Transports.Kind.IO_URING) {
                assertThat(done.await(5, TimeUnit.SECONDS) || ch.closeFuture().await(5, TimeUnit.SECONDS))
                        .as("the continuation ran or the channel closed").isTrue();
            } else {
                assertThat(done.await(5, TimeUnit.SECONDS)).as("the continuation ran").isTrue();
            }
            ch.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
