package dev.tunnel.protocol.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class HalfCloseTest {

    /**
     * The peer reset the connection before our FIN: the kernel answers the shutdown with ENOTCONN,
     * which Netty reports as a NotYetConnectedException (not an IOException). The caller's
     * continuation must still run, and nothing may escape into the write promise's listener.
     */
    @Test
    void aPeerThatResetFirstStillLetsTheCallerGoOn() throws Exception {
        EventLoopGroup group = Transports.newGroup(1, "half-close-test");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Channel ch = new Bootstrap().group(group).channel(Transports.socketChannel())
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

            assertThat(done.await(5, TimeUnit.SECONDS)).as("the continuation ran").isTrue();
            ch.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
