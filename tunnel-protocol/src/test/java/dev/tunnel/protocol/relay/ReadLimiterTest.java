package dev.tunnel.protocol.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.protocol.transport.LoopMove;
import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ReadLimiterTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Test
    void aFullBucketLetsOneSecondOfBytesThroughAtOnce() {
        TokenBucket bucket = new TokenBucket(1000, now::get);
        bucket.consume(1000);
        assertThat(bucket.waitNanos()).isZero();
        bucket.consume(1);
        assertThat(bucket.waitNanos()).isEqualTo(1 * MS);
    }

    @Test
    void aDebtIsRepaidAtTheRate() {
        TokenBucket bucket = new TokenBucket(1000, now::get);
        bucket.consume(1500); // one read past the burst: 500 bytes of debt
        assertThat(bucket.waitNanos()).isEqualTo(500 * MS);
        now.addAndGet(250 * MS);
        assertThat(bucket.waitNanos()).isEqualTo(250 * MS);
        now.addAndGet(250 * MS);
        assertThat(bucket.waitNanos()).isZero();
    }

    @Test
    void anIdleBucketHoldsNoMoreThanOneSecond() {
        TokenBucket bucket = new TokenBucket(1000, now::get);
        now.addAndGet(TimeUnit.SECONDS.toNanos(60));
        bucket.consume(2000);
        assertThat(bucket.waitNanos()).as("60 idle seconds do not buy 60 s of burst").isEqualTo(1000 * MS);
    }

    @Test
    void readsWaitWhileTheBucketIsInDebtAndResumeWhenRepaid() {
        TokenBucket bucket = new TokenBucket(1000, now::get);
        ReadCounter reads = new ReadCounter();
        EmbeddedChannel channel = new EmbeddedChannel(reads, new ReadLimiter(bucket));
        channel.config().setAutoRead(false);
        ReadLimiter limiter = channel.pipeline().get(ReadLimiter.class);
        int before = reads.count;

        channel.read();
        assertThat(reads.count).as("a full bucket: the read goes through").isEqualTo(before + 1);

        ByteBuf data = Unpooled.wrappedBuffer(new byte[1500]);
        channel.writeInbound(data);
        ByteBuf delivered = channel.readInbound();
        assertThat(delivered.readableBytes()).as("bytes read are passed on whole").isEqualTo(1500);
        delivered.release();

        channel.read();
        channel.read();
        assertThat(reads.count).as("in debt: the read waits").isEqualTo(before + 1);
        assertThat(limiter.isPaused()).isTrue();

        now.addAndGet(499 * MS);
        channel.advanceTimeBy(499, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(reads.count).isEqualTo(before + 1);

        now.addAndGet(2 * MS);
        channel.advanceTimeBy(2, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(reads.count).as("repaid: one read, however many were asked for").isEqualTo(before + 2);
        assertThat(limiter.isPaused()).isFalse();
        assertThat(channel.isOpen()).isTrue();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aWaitingReadIsDroppedWhenTheChannelCloses() {
        TokenBucket bucket = new TokenBucket(1000, now::get);
        bucket.consume(5000);
        ReadCounter reads = new ReadCounter();
        EmbeddedChannel channel = new EmbeddedChannel(reads, new ReadLimiter(bucket));
        channel.config().setAutoRead(false);
        int before = reads.count;
        channel.read();
        channel.close();
        now.addAndGet(TimeUnit.SECONDS.toNanos(5));
        channel.advanceTimeBy(5, TimeUnit.SECONDS);
        channel.runScheduledPendingTasks();
        assertThat(reads.count).isEqualTo(before);
        channel.finishAndReleaseAll();
    }

    @Test
    void aReadWaitingForTokensMovesWithItsChannelAndIsAskedForOnTheNewLoopOnly() throws Exception {
        AtomicBoolean moved = new AtomicBoolean();
        List<Thread> limiterThreads = new CopyOnWriteArrayList<>();
        List<Thread> readThreads = new CopyOnWriteArrayList<>();
        // the bucket's clock says which thread the limiter runs on once the move began
        TokenBucket bucket = new TokenBucket(10_000, () -> {
            if (moved.get()) {
                limiterThreads.add(Thread.currentThread());
            }
            return System.nanoTime();
        });
        EventLoopGroup group = Transports.newGroup(Transports.Kind.NIO, 2, "limiter-move");
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        try {
            Channel listener = new ServerBootstrap().group(group).channel(Transports.serverChannel(Transports.Kind.NIO))
                    .childOption(ChannelOption.AUTO_READ, false)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
                                @Override
                                public void read(ChannelHandlerContext ctx) {
                                    if (moved.get()) {
                                        readThreads.add(Thread.currentThread());
                                    }
                                    ctx.read();
                                }
                            }, new ReadLimiter(bucket));
                            accepted.complete(ch);
                        }
                    })
                    .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
            try (Socket peer = new Socket(InetAddress.getLoopbackAddress(),
                    ((InetSocketAddress) listener.localAddress()).getPort())) {
                Channel channel = accepted.get(5, TimeUnit.SECONDS);
                EventLoop from = channel.eventLoop();
                EventLoop to = LoopMove.another(from);
                Thread toThread = to.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
                CompletableFuture<Throwable> arrived = new CompletableFuture<>();
                from.execute(() -> {
                    bucket.consume(12_000); // 200 ms of debt
                    channel.read(); // waits in the limiter's timer, on this loop
                    moved.set(true);
                    LoopMove.moveTo(channel, to, arrived::complete);
                });
                assertThat(arrived.get(5, TimeUnit.SECONDS)).isNull();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (readThreads.isEmpty() && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                Thread.sleep(300); // one more period of debt: a timer left on the old loop would have run by now
                assertThat(readThreads).as("the read that waited reaches the socket once, on the new loop")
                        .containsExactly(toThread);
                assertThat(limiterThreads).as("the limiter ran on the new loop only").isNotEmpty()
                        .allMatch(t -> t == toThread);
                channel.close().sync();
            } finally {
                listener.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void parsesFrpQuantities() {
        assertThat(Bandwidth.parse("")).isZero();
        assertThat(Bandwidth.parse("500KB")).isEqualTo(500 * 1024);
        assertThat(Bandwidth.parse("1MB")).isEqualTo(1024 * 1024);
        assertThat(Bandwidth.parse(" 1.5MB ")).isEqualTo(1536 * 1024);
        for (String bad : new String[] {"1GB", "100", "MB", "-1MB", "0KB", "1e3KB", "abcKB", "1mb"}) {
            assertThatThrownBy(() -> Bandwidth.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("\"" + bad + "\"").hasMessageContaining("KB or MB");
        }
    }

    /** Counts the read() calls that reach the socket. */
    private static final class ReadCounter extends ChannelOutboundHandlerAdapter {
        int count;

        @Override
        public void read(ChannelHandlerContext ctx) {
            count++;
            ctx.read();
        }
    }
}
