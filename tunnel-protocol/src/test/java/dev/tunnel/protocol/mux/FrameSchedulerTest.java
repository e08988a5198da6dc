package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.FrameDecoder;
import dev.tunnel.protocol.FrameEncoder;
import dev.tunnel.protocol.OpenFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.PendingWriteQueue;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The order in which one session puts frames on its connection: control frames at once, DATA in
 * deficit-round-robin turns with sparse streams first. One {@link MuxSession} on an
 * {@link EmbeddedChannel} whose watermark is small; what it writes is decoded back into frames.
 */
@Timeout(20)
class FrameSchedulerTest {
    private static final int LOTS = 1 << 20;

    private EmbeddedChannel channel;
    private MuxSession session;
    private final EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder());
    private final Wire wire = new Wire();

    /**
     * The socket: holds what the session writes (counted against the connection's watermark,
     * as a socket that is not writable leaves it in the outbound buffer) until {@link #drain()}.
     */
    private static final class Wire extends ChannelOutboundHandlerAdapter {
        private PendingWriteQueue held;
        private ChannelHandlerContext ctx;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            held = new PendingWriteQueue(ctx);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            held.add(msg, promise);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
            // the socket takes bytes only when the test says so
        }

        /** The socket takes everything held now (not what the session writes meanwhile). */
        void drain() {
            for (int n = held.size(); n > 0; n--) {
                held.removeAndWrite();
            }
            ctx.flush();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            held.removeAndFailAll(new java.io.IOException("closed"));
        }
    }

    @BeforeEach
    void setUp() {
        session = new MuxSession(true, new MuxSettings(LOTS, LOTS), null);
        channel = new EmbeddedChannel(wire, new FrameEncoder(), session);
        session.start(LOTS); // the peer's credit: never the limit here
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8 * 1024, 32 * 1024));
    }

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
        decoder.finishAndReleaseAll();
    }

    @Test
    void dataWaitsInItsStreamAboveTheWatermarkWhileControlFramesGoOutAtOnce() {
        MuxStream bulk = open();
        bulk.write(bytes(256 * 1024));
        assertThat(channel.isWritable()).as("the scheduler filled the connection to its watermark").isFalse();
        session.ping();
        List<Sent> first = flushOnce();
        // what reached the wire: DATA up to the watermark, then the PING, not 256 KiB of DATA first
        assertThat(dataBytes(first)).isBetween(16 * 1024, 48 * 1024);
        assertThat(first.get(first.size() - 1).type()).isEqualTo(ControlFrame.class);
        assertThat(dataBytes(drainAll())).isEqualTo(256 * 1024 - dataBytes(first));
    }

    @Test
    void aSparseStreamIsServedBeforeABackloggedOne() {
        MuxStream bulk = open();
        bulk.write(bytes(200 * 1024));
        flushOnce(); // bulk has sent a lot recently: it is backlogged
        MuxStream interactive = open();
        interactive.write(bytes(100));
        flushOnce(); // what bulk had already handed to the connection
        List<Integer> order = dataStreams(flushOnce());
        assertThat(order).as("streams of the DATA frames written once the connection drained")
                .startsWith(interactive.id()).contains(bulk.id());
    }

    @Test
    void aStreamThatSentLittleRecentlyIsSparseAgain() throws InterruptedException {
        MuxStream a = open();
        a.write(bytes(200 * 1024));
        drainAll();
        Thread.sleep(FrameScheduler.SPARSE_EPOCH_NANOS / 1_000_000 + 5);
        MuxStream bulk = open();
        bulk.write(bytes(200 * 1024));
        flushOnce();
        a.write(bytes(100));
        flushOnce();
        assertThat(dataStreams(flushOnce())).startsWith(a.id());
    }

    @Test
    void backloggedStreamsShareTheConnectionInQuantumTurns() {
        MuxStream a = open();
        MuxStream b = open();
        MuxStream c = open();
        a.write(bytes(512 * 1024));
        b.write(bytes(512 * 1024));
        c.write(bytes(512 * 1024));
        flushOnce(); // the first stream was alone for its first frame
        Map<Integer, Integer> sent = new HashMap<>();
        for (int round = 0; round < 12; round++) {
            for (Sent f : flushOnce()) {
                if (f.isData()) {
                    sent.merge(f.streamId(), f.bytes(), Integer::sum);
                    assertThat(f.bytes()).isLessThanOrEqualTo(FrameScheduler.QUANTUM);
                }
            }
        }
        int total = sent.values().stream().mapToInt(Integer::intValue).sum();
        assertThat(total).isGreaterThan(6 * FrameScheduler.QUANTUM);
        assertThat(sent.keySet()).containsExactlyInAnyOrder(a.id(), b.id(), c.id());
        for (int bytes : sent.values()) {
            assertThat(bytes).as("each stream's share of %d bytes", total)
                    .isBetween(total / 3 - FrameScheduler.QUANTUM, total / 3 + FrameScheduler.QUANTUM);
        }
    }

    @Test
    void aStreamAloneSendsFullSizedFrames() {
        channel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(256 * 1024, 1024 * 1024));
        MuxStream alone = open();
        alone.write(bytes(MuxStream.MAX_CHUNK));
        assertThat(flushOnce()).filteredOn(Sent::isData).extracting(Sent::bytes).containsExactly(MuxStream.MAX_CHUNK);
    }

    @Test
    void waitingStreamsShowAsQueueingDelay() throws InterruptedException {
        MuxStream bulk = open();
        bulk.write(bytes(256 * 1024));
        MuxStream other = open();
        other.write(bytes(1000));
        Thread.sleep(5); // the other stream waits behind the full connection for at least this long
        drainAll();
        assertThat(session.takeMaxQueueDelayNanos()).isGreaterThanOrEqualTo(5_000_000L);
        assertThat(session.queueDelayNanos()).isPositive();
    }

    @Test
    void aResetStreamLeavesTheQueueAndItsBytesAreReleased() {
        MuxStream bulk = open();
        bulk.write(bytes(100 * 1024));
        ByteBuf held = bytes(50 * 1024);
        MuxStream doomed = open();
        doomed.write(held.retain());
        doomed.reset(dev.tunnel.protocol.ResetCode.CANCEL);
        assertThat(held.refCnt()).isEqualTo(1);
        held.release();
        assertThat(dataStreams(drainAll())).doesNotContain(doomed.id()).contains(bulk.id());
    }

    // ---- helpers ----

    /** A frame that reached the wire: DATA with its stream and size, or another type. */
    private record Sent(Class<?> type, int streamId, int bytes) {
        boolean isData() {
            return type == DataFrame.class;
        }
    }

    private MuxStream open() {
        MuxStream stream = session.openStream(1, "203.0.113.9:1234");
        stream.handler(new RecordingHandler(stream, 1, "x"));
        return stream;
    }

    /** Runs the session's pending flush, lets the wire take what it holds, and decodes that. */
    private List<Sent> flushOnce() {
        channel.runPendingTasks();
        wire.drain();
        channel.runPendingTasks();
        List<Sent> frames = new ArrayList<>();
        ByteBuf buf;
        while ((buf = channel.readOutbound()) != null) {
            decoder.writeInbound(buf);
        }
        Object f;
        while ((f = decoder.readInbound()) != null) {
            if (f instanceof DataFrame d) {
                frames.add(new Sent(DataFrame.class, d.streamId(), d.content().readableBytes()));
            } else if (!(f instanceof OpenFrame)) {
                frames.add(new Sent(f.getClass(), ((Frame) f).streamId(), 0));
            }
            ReferenceCountUtil.release(f);
        }
        return frames;
    }

    private List<Sent> drainAll() {
        List<Sent> all = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            List<Sent> some = flushOnce();
            if (some.isEmpty() && channel.isWritable()) {
                break;
            }
            all.addAll(some);
        }
        return all;
    }

    private static int dataBytes(List<Sent> frames) {
        return frames.stream().filter(Sent::isData).mapToInt(Sent::bytes).sum();
    }

    private static List<Integer> dataStreams(List<Sent> frames) {
        return frames.stream().filter(Sent::isData).map(Sent::streamId).toList();
    }

    private static ByteBuf bytes(int n) {
        return Unpooled.wrappedBuffer(new byte[n]);
    }
}
