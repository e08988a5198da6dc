package dev.tunnel.protocol.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tunnel.protocol.testing.LeakGuard;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A half-closed epoll socket must still be able to write more than its send buffer holds: the
 * client sends its FIN first, then reads slowly, and must get every byte the server wrote after
 * that FIN. On Netty 4.2.18's own epoll handler this loses the tail (see
 * {@link EpollKeepRegistered}).
 */
@ExtendWith(LeakGuard.class)
class EpollKeepRegisteredTest {
    private static final int CHUNK = 64 * 1024;
    private static final int CHUNKS = 512; // 32 MiB, far more than the socket buffers

    @Test
    @Timeout(60)
    void halfClosedSocketWritesEverythingAfterItsInputEnded() throws Exception {
        assumeTrue(Epoll.isAvailable(), "epoll not available here");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollKeepRegistered.newFactory());
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try {
            Channel server = new ServerBootstrap()
                    .group(group)
                    .channel(EpollServerSocketChannel.class)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ReferenceCountUtil.release(msg);
                        }

                        @Override
                        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                            if (evt == ChannelInputShutdownEvent.INSTANCE) {
                                // later, once the channel has settled with nothing to wait for
                                ctx.executor().schedule(() -> writeAll(ctx), 100, TimeUnit.MILLISECONDS);
                            }
                        }

                        private void writeAll(ChannelHandlerContext ctx) {
                            for (int i = 0; i < CHUNKS; i++) {
                                ByteBuf chunk = ctx.alloc().directBuffer(CHUNK);
                                chunk.writerIndex(CHUNK);
                                ctx.write(chunk).addListener(f -> {
                                    if (!f.isSuccess()) {
                                        failure.compareAndSet(null, f.cause());
                                    }
                                });
                            }
                            ctx.flush();
                            ctx.writeAndFlush(ctx.alloc().buffer(0))
                                    .addListener(f -> ((DuplexChannel) ctx.channel()).shutdownOutput());
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            long received = 0;
            try (Socket client = new Socket()) {
                client.setReceiveBufferSize(64 * 1024);
                client.connect(server.localAddress());
                client.shutdownOutput();
                Thread.sleep(500); // let the server fill its send buffer while this side does not read
                InputStream in = client.getInputStream();
                byte[] buf = new byte[CHUNK];
                int n;
                while ((n = in.read(buf)) >= 0) {
                    received += n;
                }
            }
            server.close().sync();
            assertThat(failure.get()).as("write failure on the server").isNull();
            assertThat(received).isEqualTo((long) CHUNK * CHUNKS);
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
