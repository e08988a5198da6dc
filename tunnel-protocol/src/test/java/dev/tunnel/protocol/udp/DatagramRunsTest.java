package dev.tunnel.protocol.udp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.unix.Errors;
import io.netty.channel.unix.SegmentedDatagramPacket;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** Runs of equal-sized datagrams leave as one GSO send, cut where they should be, and fall back when refused. */
@Timeout(20)
class DatagramRunsTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 5353);
    private final UdpDrops drops = new UdpDrops(LoggerFactory.getLogger(DatagramRunsTest.class), "test");

    private static ByteBuf datagram(int length, int fill) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (fill + i);
        }
        return Unpooled.directBuffer(length).writeBytes(b);
    }

    private static byte[] expected(int... lengthsAndFills) {
        ByteBuf all = Unpooled.buffer();
        for (int i = 0; i < lengthsAndFills.length; i += 2) {
            ByteBuf d = datagram(lengthsAndFills[i], lengthsAndFills[i + 1]);
            all.writeBytes(d);
            d.release();
        }
        byte[] bytes = ByteBufUtil.getBytes(all);
        all.release();
        return bytes;
    }

    private static List<Object> written(EmbeddedChannel ch) {
        ch.flush();
        List<Object> out = new ArrayList<>();
        Object m;
        while ((m = ch.readOutbound()) != null) {
            out.add(m);
        }
        return out;
    }

    private static byte[] content(Object msg) {
        ByteBuf b = msg instanceof DatagramPacket p ? p.content() : (ByteBuf) msg;
        return ByteBufUtil.getBytes(b);
    }

    @Test
    void equalSizedDatagramsLeaveAsOneSegmentedSendEndedByAShorterOne() {
        EmbeddedChannel ch = new EmbeddedChannel();
        DatagramRuns runs = new DatagramRuns(drops, true);
        for (int i = 0; i < 5; i++) {
            runs.add(ch, datagram(100, i), PEER);
        }
        runs.add(ch, datagram(40, 9), PEER); // shorter: the run's last segment
        runs.add(ch, datagram(100, 7), PEER); // a new run, alone
        runs.end(ch, PEER);

        List<Object> out = written(ch);
        assertThat(out).hasSize(2);
        SegmentedDatagramPacket run = (SegmentedDatagramPacket) out.get(0);
        assertThat(run.segmentSize()).isEqualTo(100);
        assertThat(run.recipient()).isEqualTo(PEER);
        assertThat(content(run)).isEqualTo(expected(100, 0, 100, 1, 100, 2, 100, 3, 100, 4, 40, 9));
        assertThat(out.get(1)).isNotInstanceOf(SegmentedDatagramPacket.class);
        assertThat(((DatagramPacket) out.get(1)).recipient()).isEqualTo(PEER);
        assertThat(content(out.get(1))).isEqualTo(expected(100, 7));
        out.forEach(ReferenceCountUtil::release);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aRunIsCutAtTheSegmentLimitAndALongerDatagramStartsAfresh() {
        EmbeddedChannel ch = new EmbeddedChannel();
        DatagramRuns runs = new DatagramRuns(drops, true);
        for (int i = 0; i < DatagramRuns.MAX_SEGMENTS + 3; i++) {
            runs.add(ch, datagram(10, i), PEER);
        }
        runs.add(ch, datagram(20, 1), PEER);
        runs.end(ch, PEER);

        List<Object> out = written(ch);
        assertThat(out).hasSize(3);
        assertThat(((SegmentedDatagramPacket) out.get(0)).content().readableBytes()).isEqualTo(10 * DatagramRuns.MAX_SEGMENTS);
        assertThat(((SegmentedDatagramPacket) out.get(1)).content().readableBytes()).isEqualTo(30);
        assertThat(content(out.get(1))).isEqualTo(expected(10, 64, 10, 65, 10, 66));
        assertThat(content(out.get(2))).isEqualTo(expected(20, 1));
        out.forEach(ReferenceCountUtil::release);
        ch.finishAndReleaseAll();
    }

    @Test
    void aRunStopsBeforeTheBytesOfOneSendAreExceeded() {
        EmbeddedChannel ch = new EmbeddedChannel();
        DatagramRuns runs = new DatagramRuns(drops, true);
        for (int i = 0; i < 60; i++) {
            runs.add(ch, datagram(1400, i), PEER);
        }
        runs.end(ch, PEER);

        List<Object> out = written(ch);
        int perRun = DatagramRuns.MAX_RUN_BYTES / 1400;
        assertThat(out).hasSize(2);
        assertThat(((DatagramPacket) out.get(0)).content().readableBytes()).isEqualTo(perRun * 1400);
        assertThat(((DatagramPacket) out.get(1)).content().readableBytes()).isEqualTo((60 - perRun) * 1400);
        out.forEach(ReferenceCountUtil::release);
        ch.finishAndReleaseAll();
    }

    @Test
    void datagramsOfChangingSizesGoOutOneByOne() {
        EmbeddedChannel ch = new EmbeddedChannel();
        DatagramRuns runs = new DatagramRuns(drops, true);
        runs.add(ch, datagram(50, 1), PEER);
        runs.add(ch, datagram(60, 2), PEER);
        runs.add(ch, Unpooled.EMPTY_BUFFER, PEER);
        runs.add(ch, datagram(50, 3), PEER);
        runs.end(ch, PEER);

        List<Object> out = written(ch);
        assertThat(out).hasSize(4).noneMatch(m -> m instanceof SegmentedDatagramPacket);
        assertThat(out.stream().map(DatagramRunsTest::content))
                .containsExactly(expected(50, 1), expected(60, 2), new byte[0], expected(50, 3));
        out.forEach(ReferenceCountUtil::release);
        ch.finishAndReleaseAll();
    }

    @Test
    void withoutSegmentingAConnectedSocketGetsBareBuffers() {
        EmbeddedChannel ch = new EmbeddedChannel();
        DatagramRuns runs = new DatagramRuns(drops, false);
        for (int i = 0; i < 4; i++) {
            runs.add(ch, datagram(30, i), null);
        }
        runs.end(ch, null);

        List<Object> out = written(ch);
        assertThat(out).hasSize(4).allMatch(m -> m instanceof ByteBuf);
        assertThat(content(out.get(3))).isEqualTo(expected(30, 3));
        out.forEach(ReferenceCountUtil::release);
        ch.finishAndReleaseAll();
    }

    @Test
    void aRefusedSegmentedSendIsCountedAndSegmentingStops() {
        EmbeddedChannel ch = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                if (msg instanceof SegmentedDatagramPacket) { // as epoll does without UDP_SEGMENT
                    ReferenceCountUtil.release(msg);
                    promise.setFailure(new UnsupportedOperationException("unsupported message type"));
                } else {
                    ctx.write(msg, promise);
                }
            }
        });
        DatagramRuns runs = new DatagramRuns(drops, true);
        for (int i = 0; i < 3; i++) {
            runs.add(ch, datagram(80, i), PEER);
        }
        runs.end(ch, PEER);
        assertThat(written(ch)).isEmpty();
        assertThat(drops.count(UdpDrops.Reason.SOCKET_FULL)).isEqualTo(3);
        assertThat(runs.segmenting()).isFalse();

        for (int i = 0; i < 3; i++) {
            runs.add(ch, datagram(80, i), PEER);
        }
        runs.end(ch, PEER);
        List<Object> out = written(ch);
        assertThat(out).hasSize(3).noneMatch(m -> m instanceof SegmentedDatagramPacket);
        out.forEach(ReferenceCountUtil::release);
        ch.finishAndReleaseAll();
    }

    @Test
    void onlyTheKernelRefusingGsoTurnsItOff() {
        Assumptions.assumeTrue(Epoll.isAvailable(), "epoll's native library (for Errors)");
        assertThat(DatagramRuns.unsupported(new Errors.NativeIoException("sendmmsg", -22))).isTrue(); // EINVAL
        assertThat(DatagramRuns.unsupported(new Errors.NativeIoException("sendmmsg", -5))).isTrue(); // EIO
        assertThat(DatagramRuns.unsupported(new Errors.NativeIoException("sendmmsg", -111))).isFalse(); // ECONNREFUSED
        assertThat(DatagramRuns.unsupported(new java.net.PortUnreachableException())).isFalse();
    }

    @Test
    void releaseFreesWhatIsHeld() {
        EmbeddedChannel ch = new EmbeddedChannel();
        DatagramRuns runs = new DatagramRuns(drops, true);
        ByteBuf lone = datagram(10, 1);
        runs.add(ch, lone, PEER);
        runs.release();
        assertThat(lone.refCnt()).isZero();
        ByteBuf a = datagram(10, 1);
        runs.add(ch, a, PEER);
        runs.add(ch, datagram(10, 2), PEER);
        runs.release();
        assertThat(a.refCnt()).isZero();
        assertThat(written(ch)).isEmpty();
        ch.finishAndReleaseAll();
    }

    /** Real sockets: what the kernel delivers from a GSO send is the datagrams, whole, one by one. */
    @Test
    void onLoopbackTheReceiverGetsEachDatagramOfARun() throws Exception {
        Assumptions.assumeTrue(Epoll.isAvailable() && EpollDatagramChannel.isSegmentedDatagramPacketSupported(),
                "epoll with UDP_SEGMENT");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try (DatagramChannel receiver = DatagramChannel.open(StandardProtocolFamily.INET)) {
            receiver.bind(new InetSocketAddress("127.0.0.1", 0));
            InetSocketAddress to = (InetSocketAddress) receiver.getLocalAddress();
            for (boolean connected : new boolean[] {false, true}) {
                Bootstrap b = new Bootstrap().group(group).channel(EpollDatagramChannel.class)
                        .handler(new ChannelInboundHandlerAdapter());
                Channel socket = connected ? b.connect(to).sync().channel()
                        : b.bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
                assertThat(DatagramRuns.segmentable(socket)).isTrue();
                DatagramRuns runs = new DatagramRuns(drops, true);
                InetSocketAddress peer = connected ? null : to;
                socket.eventLoop().submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        runs.add(socket, datagram(300, i), peer);
                    }
                    runs.add(socket, datagram(7, 99), peer);
                    runs.end(socket, peer);
                    socket.flush();
                }).sync();

                receiver.configureBlocking(false);
                List<byte[]> got = new ArrayList<>();
                ByteBuffer into = ByteBuffer.allocate(2048);
                await().atMost(Duration.ofSeconds(5)).until(() -> {
                    for (into.clear(); receiver.receive(into) != null; into.clear()) {
                        into.flip();
                        byte[] d = new byte[into.remaining()];
                        into.get(d);
                        got.add(d);
                    }
                    return got.size() >= 21;
                });
                for (int i = 0; i < 20; i++) {
                    assertThat(got.get(i)).as("datagram %d, connected %s", i, connected).isEqualTo(expected(300, i));
                }
                assertThat(got.get(20)).isEqualTo(expected(7, 99));
                assertThat(runs.segmenting()).isTrue();
                socket.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        assertThat(drops.total()).isZero();
    }
}
