package dev.tunnel.protocol.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tunnel.protocol.testing.LeakGuard;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.unix.UnixChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The two epoll bugs {@link FixedEpollIoHandler} works around; each test fails on Netty 4.2.18's
 * own epoll handler (swap the factory in {@link #oneLoop} to see it). The same tests run on
 * Netty's io_uring handler as it is, which needs neither fix: it submits reads and writes rather
 * than registering interest (nothing to drop from an interest set), and each completion carries
 * its channel's registration rather than a descriptor number.
 */
@ExtendWith(LeakGuard.class)
class FixedEpollIoHandlerTest {
    private static final int CHUNK = 64 * 1024;
    private static final int CHUNKS = 512; // 32 MiB, far more than the socket buffers

    /**
     * A half-closed socket must still be able to write more than its send buffer holds: the
     * client sends its FIN first, then reads slowly, and must get every byte the server wrote
     * after that FIN.
     */
    @ParameterizedTest
    @EnumSource(value = Transports.Kind.class, names = {"EPOLL", "IO_URING"})
    @Timeout(60)
    void halfClosedSocketWritesEverythingAfterItsInputEnded(Transports.Kind kind) throws Exception {
        EventLoopGroup group = oneLoop(kind);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try {
            Channel server = halfClosingServer(kind, group, new ChannelInboundHandlerAdapter() {
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
            });
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

    /**
     * One batch of ready events holds data on connection Y, then the FIN of connection X. Reading
     * Y closes X and connects a new socket Z, which gets X's descriptor number. X's FIN, still in
     * the batch, must not reach Z: on Netty's own handler Z's connect fails with a
     * ClosedChannelException.
     */
    @ParameterizedTest
    @EnumSource(value = Transports.Kind.class, names = {"EPOLL", "IO_URING"})
    @Timeout(30)
    void aSocketCreatedDuringABatchGetsNoneOfItsEvents(Transports.Kind kind) throws Exception {
        EventLoopGroup group = oneLoop(kind);
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        CompletableFuture<Channel> connectedZ = new CompletableFuture<>();
        CompletableFuture<int[]> fds = new CompletableFuture<>();
        try (ServerSocket app = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            InetSocketAddress appAddress = (InetSocketAddress) app.getLocalSocketAddress();
            AtomicReference<Channel> channelX = new AtomicReference<>();
            Channel server = halfClosingServer(kind, group, new ChannelInboundHandlerAdapter() {
                @Override
                public boolean isSharable() {
                    return true;
                }

                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    accepted.add(ctx.channel());
                }

                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    ReferenceCountUtil.release(msg);
                    Channel x = channelX.get();
                    if (ctx.channel() == x || connectedZ.isDone() || fds.isDone()) {
                        return;
                    }
                    int fdX = ((UnixChannel) x).fd().intValue();
                    x.close();
                    ChannelFuture z = new Bootstrap()
                            .group(ctx.channel().eventLoop())
                            .channel(Transports.socketChannel(kind))
                            .handler(new ChannelInboundHandlerAdapter())
                            .connect(appAddress);
                    fds.complete(new int[] {fdX, ((UnixChannel) z.channel()).fd().intValue()});
                    z.addListener((ChannelFuture f) -> {
                        if (f.isSuccess()) {
                            connectedZ.complete(f.channel());
                        } else {
                            connectedZ.completeExceptionally(f.cause());
                        }
                    });
                }
            });
            try (Socket x = new Socket(); Socket y = new Socket()) {
                x.connect(server.localAddress());
                Channel first = accepted.poll(5, TimeUnit.SECONDS);
                y.connect(server.localAddress());
                Channel second = accepted.poll(5, TimeUnit.SECONDS);
                assertThat(first).isNotNull();
                assertThat(second).isNotNull();
                channelX.set(first);
                // Hold the loop so that both events land in one epoll_wait: Y's data first, then X's FIN.
                CountDownLatch held = new CountDownLatch(1);
                group.next().execute(() -> {
                    held.countDown();
                    sleep(300);
                });
                held.await();
                y.getOutputStream().write(1);
                y.getOutputStream().flush();
                Thread.sleep(20);
                x.shutdownOutput();
                int[] numbers = fds.get(5, TimeUnit.SECONDS);
                // io_uring closes X's descriptor only once X's pending read has completed, so Z
                // usually gets another number there; what must hold either way is that Z connects.
                assumeTrue(kind != Transports.Kind.EPOLL || numbers[0] == numbers[1],
                        "the kernel gave Z another descriptor number than X's");
                Channel z = connectedZ.get(5, TimeUnit.SECONDS);
                Thread.sleep(100);
                assertThat(z.isActive()).as("Z still connected after the rest of the batch").isTrue();
                z.close().sync();
            } finally {
                server.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** A listener on 127.0.0.1 whose accepted sockets allow half-closure and run {@code handler}. */
    private static Channel halfClosingServer(Transports.Kind kind, EventLoopGroup group,
                                             ChannelInboundHandlerAdapter handler) throws InterruptedException {
        return new ServerBootstrap()
                .group(group)
                .channel(Transports.serverChannel(kind))
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(handler)
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    /**
     * One loop: epoll with the fixed handler (put EpollIoHandler.newFactory() here to see the
     * bugs), or io_uring as Netty ships it.
     */
    private static EventLoopGroup oneLoop(Transports.Kind kind) {
        if (kind == Transports.Kind.IO_URING) {
            assumeTrue(IoUring.isAvailable(), "io_uring not available here");
            return new MultiThreadIoEventLoopGroup(1, IoUringIoHandler.newFactory());
        }
        assumeTrue(Epoll.isAvailable(), "epoll not available here");
        return new MultiThreadIoEventLoopGroup(1, FixedEpollIoHandler.newFactory());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
