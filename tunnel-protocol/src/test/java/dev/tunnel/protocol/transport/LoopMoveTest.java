package dev.tunnel.protocol.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tunnel.protocol.testing.LeakGuard;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import io.netty.util.concurrent.EventExecutor;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.security.MessageDigest;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A connection moved to another event loop while its peer keeps sending: every byte arrives, in
 * order, and from the move on the channel reads and writes on the new loop only.
 */
@ExtendWith(LeakGuard.class)
class LoopMoveTest {
    private static final int BYTES = 8 << 20;

    @ParameterizedTest
    @EnumSource(value = Transports.Kind.class, names = {"EPOLL", "NIO"})
    @Timeout(60)
    void aConnectionMovedMidStreamLosesNothingAndRunsOnItsNewLoop(Transports.Kind kind) throws Exception {
        EventLoopGroup group = twoLoops(kind);
        AtomicReference<EventLoop> target = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CopyOnWriteArrayList<Thread> readersAfterMove = new CopyOnWriteArrayList<>();
        try {
            Channel listener = new ServerBootstrap().group(group).channel(Transports.serverChannel(kind))
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        private boolean moved;

                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            if (moved) {
                                readersAfterMove.add(Thread.currentThread());
                            }
                            // echo from whichever loop reads: before the move the old one, after it the new one
                            ctx.write(msg);
                            if (!moved) {
                                moved = true;
                                move(ctx.channel(), group, target, failure);
                            }
                        }

                        @Override
                        public void channelReadComplete(ChannelHandlerContext ctx) {
                            ctx.flush();
                        }

                        @Override
                        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                            failure.compareAndSet(null, cause);
                            ctx.close();
                        }
                    })
                    .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
            int port = ((java.net.InetSocketAddress) listener.localAddress()).getPort();
            byte[] sent;
            byte[] echoed;
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                CompletableFuture<byte[]> writer = CompletableFuture.supplyAsync(() -> send(socket));
                echoed = digest(socket.getInputStream(), BYTES);
                sent = writer.get(30, TimeUnit.SECONDS);
            }
            assertThat(failure.get()).isNull();
            assertThat(echoed).as("every byte back, in order").isEqualTo(sent);
            assertThat(target.get()).isNotNull();
            assertThat(readersAfterMove).as("reads after the move").isNotEmpty()
                    .allMatch(thread -> target.get().inEventLoop(thread));
            listener.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /**
     * A handler that finishes its connection while the move is under way (the close comes from an
     * event the old loop had read before the channel left it): nothing is left to move, and that is
     * not a failure; the move's end runs on the new loop, once the old loop is done with the channel.
     */
    @ParameterizedTest
    @EnumSource(value = Transports.Kind.class, names = {"EPOLL", "NIO"})
    @Timeout(30)
    void aConnectionClosedDuringItsMoveLandsClosedWithoutFailure(Transports.Kind kind) throws Exception {
        EventLoopGroup group = twoLoops(kind);
        CompletableFuture<String> landed = new CompletableFuture<>();
        try {
            Channel listener = new ServerBootstrap().group(group).channel(Transports.serverChannel(kind))
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        private volatile boolean unregistered;

                        @Override
                        public void channelActive(ChannelHandlerContext ctx) {
                            Channel channel = ctx.channel();
                            EventLoop other = LoopMove.another(channel.eventLoop());
                            channel.config().setAutoRead(false);
                            LoopMove.moveTo(channel, other, cause -> landed.complete(
                                    "failure " + cause + ", on the new loop " + other.inEventLoop()
                                            + ", open " + channel.isOpen() + ", after the old loop's last event "
                                            + unregistered));
                            channel.close(); // before the loop ran the deregistration it queued
                        }

                        @Override
                        public void channelUnregistered(ChannelHandlerContext ctx) {
                            unregistered = true;
                        }
                    })
                    .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
            int port = ((java.net.InetSocketAddress) listener.localAddress()).getPort();
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                assertThat(socket.getInputStream().read()).as("the server's close").isEqualTo(-1);
                assertThat(landed.get(10, TimeUnit.SECONDS))
                        .isEqualTo("failure null, on the new loop true, open false, after the old loop's last event true");
            }
            listener.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void ioUringChannelsStayWhereTheyAre() {
        assumeTrue(IoUring.isAvailable());
        assertThat(LoopMove.canMove(new io.netty.channel.uring.IoUringSocketChannel())).isFalse();
    }

    /** A group of two loops of {@code kind}; skips the test where the transport is missing. */
    private static EventLoopGroup twoLoops(Transports.Kind kind) {
        assumeTrue(kind != Transports.Kind.EPOLL || Epoll.isAvailable());
        return Transports.newGroup(kind, 2, "move");
    }

    /** Stops reading, moves the channel to the group's other loop, reads again there. */
    private static void move(Channel channel, EventLoopGroup group, AtomicReference<EventLoop> target,
                             AtomicReference<Throwable> failure) {
        EventLoop other = null;
        for (EventExecutor loop : group) {
            if (loop != channel.eventLoop()) {
                other = (EventLoop) loop;
            }
        }
        target.set(other);
        channel.config().setAutoRead(false);
        LoopMove.moveTo(channel, other, cause -> {
            if (cause != null) {
                failure.compareAndSet(null, cause);
                return;
            }
            channel.config().setAutoRead(true);
        });
    }

    private static byte[] send(Socket socket) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            SplittableRandom random = new SplittableRandom(18);
            OutputStream out = socket.getOutputStream();
            byte[] chunk = new byte[16 * 1024];
            for (int left = BYTES; left > 0; left -= chunk.length) {
                random.nextBytes(chunk);
                out.write(chunk);
                sha.update(chunk);
            }
            out.flush();
            return sha.digest();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] digest(InputStream in, int bytes) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] buf = new byte[64 * 1024];
        int left = bytes;
        while (left > 0) {
            int n = in.read(buf, 0, Math.min(buf.length, left));
            if (n < 0) {
                break;
            }
            sha.update(buf, 0, n);
            left -= n;
        }
        return sha.digest();
    }
}
