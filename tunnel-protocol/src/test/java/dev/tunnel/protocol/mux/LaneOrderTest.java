package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.LaneFrame;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link LaneOrder}: what a sender puts on two lanes, with markers where it moves, comes out in
 * the sender's order however the lanes interleave on arrival; what is held stays bounded.
 */
class LaneOrderTest {
    private static final int STREAM = 3;

    /** One frame as the sender sent it, and the lane it went on. */
    private record Sent(int lane, Frame frame) {
    }

    /**
     * The sender's frames for {@code pattern}: bit i set = a move (marker on the current lane,
     * then the other lane), clear = a DATA frame numbered in order.
     */
    private static List<Sent> send(int pattern, int length) {
        List<Sent> out = new ArrayList<>();
        int lane = LaneOrder.EXPRESS;
        int seq = 0;
        for (int i = 0; i < length; i++) {
            if ((pattern & (1 << i)) != 0) {
                out.add(new Sent(lane, new LaneFrame(STREAM)));
                lane ^= 1;
            } else {
                out.add(new Sent(lane, new DataFrame(STREAM, Unpooled.wrappedBuffer(new byte[] {(byte) seq++}), false)));
            }
        }
        return out;
    }

    private static List<Sent> onLane(List<Sent> sent, int lane) {
        return sent.stream().filter(s -> s.lane() == lane).toList();
    }

    /** Delivers per {@code choice} (bit j: take from the bulk lane at step j) and returns the sequence numbers. */
    private static List<Integer> receive(List<Sent> express, List<Sent> bulk, long choice) {
        LaneOrder order = new LaneOrder();
        List<Integer> delivered = new ArrayList<>();
        int e = 0;
        int b = 0;
        for (int step = 0; e < express.size() || b < bulk.size(); step++) {
            boolean fromBulk = e == express.size() || b < bulk.size() && (choice & (1L << step)) != 0;
            Sent s = fromBulk ? bulk.get(b++) : express.get(e++);
            String error = order.offer(s.lane(), s.frame(), Long.MAX_VALUE, 0, data -> {
                delivered.add((int) data.content().getByte(0));
            });
            if (error != null) {
                throw new AssertionError(error);
            }
        }
        if (order.holding()) {
            throw new AssertionError("frames left held once every frame arrived");
        }
        return delivered;
    }

    @Test
    void everyInterleavingOfEverySendPatternIsDeliveredInOrder() {
        int cases = 0;
        for (int length = 1; length <= 9; length++) {
            for (int pattern = 0; pattern < 1 << length; pattern++) {
                List<Sent> sent = send(pattern, length);
                List<Sent> express = onLane(sent, LaneOrder.EXPRESS);
                List<Sent> bulk = onLane(sent, LaneOrder.BULK);
                long dataFrames = sent.stream().filter(s -> s.frame() instanceof DataFrame).count();
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < dataFrames; i++) {
                    expected.add(i);
                }
                // every choice sequence of length express+bulk covers every interleaving
                for (long choice = 0; choice < 1L << length; choice++) {
                    List<Integer> delivered = receive(express, bulk, choice);
                    if (!delivered.equals(expected)) {
                        throw new AssertionError("pattern " + Integer.toBinaryString(pattern) + ", choice "
                                + Long.toBinaryString(choice) + ": delivered " + delivered);
                    }
                    cases++;
                }
            }
        }
        assertThat(cases).isGreaterThan(100_000);
    }

    @Test
    void longRandomSequencesAreDeliveredInOrder() {
        Random random = new Random(18);
        for (int round = 0; round < 200; round++) {
            List<Sent> sent = new ArrayList<>();
            int lane = LaneOrder.EXPRESS;
            int seq = 0;
            for (int i = 0; i < 400; i++) {
                if (random.nextInt(8) == 0) {
                    sent.add(new Sent(lane, new LaneFrame(STREAM)));
                    lane ^= 1;
                } else {
                    sent.add(new Sent(lane, new DataFrame(STREAM, Unpooled.copyInt(seq++), false)));
                }
            }
            List<Sent> express = new ArrayList<>(onLane(sent, LaneOrder.EXPRESS));
            List<Sent> bulk = new ArrayList<>(onLane(sent, LaneOrder.BULK));
            LaneOrder order = new LaneOrder();
            List<Integer> delivered = new ArrayList<>();
            while (!express.isEmpty() || !bulk.isEmpty()) {
                // bursts from one lane, as reads of two connections arrive
                List<Sent> from = express.isEmpty() ? bulk : bulk.isEmpty() ? express : random.nextBoolean() ? express : bulk;
                for (int n = 1 + random.nextInt(20); n > 0 && !from.isEmpty(); n--) {
                    Sent s = from.remove(0);
                    assertThat(order.offer(s.lane(), s.frame(), Long.MAX_VALUE, 0,
                            data -> delivered.add(data.content().getInt(0)))).isNull();
                }
            }
            for (int i = 0; i < seq; i++) {
                assertThat(delivered.get(i)).isEqualTo(i);
            }
            assertThat(delivered).hasSize(seq);
        }
    }

    @Test
    void framesAheadOfTheirMarkerWaitAndCountAgainstTheLimit() {
        LaneOrder order = new LaneOrder();
        List<DataFrame> delivered = new ArrayList<>();
        DataFrame early = new DataFrame(STREAM, Unpooled.wrappedBuffer(new byte[1000]), false);
        assertThat(order.offer(LaneOrder.BULK, early, 2000, 5, delivered::add)).isNull();
        assertThat(delivered).isEmpty();
        assertThat(order.holding()).isTrue();
        assertThat(order.heldSinceNanos()).isEqualTo(5);
        assertThat(order.heldBytes()).isEqualTo(1000 + LaneOrder.FRAME_OVERHEAD);

        DataFrame tooMuch = new DataFrame(STREAM, Unpooled.wrappedBuffer(new byte[1000]), false);
        String error = order.offer(LaneOrder.BULK, tooMuch, 2000, 6, delivered::add);
        assertThat(error).contains("bulk lane ahead of its lane marker on the express lane").contains("at most 2000");
        assertThat(tooMuch.refCnt()).as("a refused frame is released").isZero();

        order.release();
        assertThat(early.refCnt()).as("held frames are released with the stream").isZero();
        assertThat(order.heldBytes()).isZero();
    }

    @Test
    void markersAloneCannotGrowTheQueueWithoutBound() {
        LaneOrder order = new LaneOrder();
        String error = null;
        int n = 0;
        while (error == null && n < 1_000_000) {
            error = order.offer(LaneOrder.BULK, new LaneFrame(STREAM), 64 * 1024, 0, data -> { });
            n++;
        }
        assertThat(error).isNotNull();
        assertThat(n).isLessThanOrEqualTo(64 * 1024 / LaneOrder.FRAME_OVERHEAD + 1);
        order.release();
    }

    @Test
    void aReplayStopsAtASecondMarkerAndHoldsWhatFollowsIt() {
        // sender: express d0, move; bulk d1 d2, move; express d3, move; bulk d4
        LaneOrder order = new LaneOrder();
        List<Integer> delivered = new ArrayList<>();
        LaneOrder.Sink sink = data -> delivered.add((int) data.content().getByte(0));
        long limit = 1 << 20;
        order.offer(LaneOrder.EXPRESS, data(0), limit, 0, sink);
        order.offer(LaneOrder.BULK, data(1), limit, 0, sink);
        order.offer(LaneOrder.BULK, data(2), limit, 0, sink);
        order.offer(LaneOrder.BULK, new LaneFrame(STREAM), limit, 0, sink);
        order.offer(LaneOrder.BULK, data(4), limit, 0, sink);
        assertThat(delivered).containsExactly(0);

        order.offer(LaneOrder.EXPRESS, new LaneFrame(STREAM), limit, 0, sink);
        assertThat(delivered).as("d4 came behind the bulk lane's marker: it waits for d3").containsExactly(0, 1, 2);
        assertThat(order.lane()).isEqualTo(LaneOrder.EXPRESS);
        assertThat(order.holding()).isTrue();

        order.offer(LaneOrder.EXPRESS, data(3), limit, 0, sink);
        order.offer(LaneOrder.EXPRESS, new LaneFrame(STREAM), limit, 0, sink);
        assertThat(delivered).containsExactly(0, 1, 2, 3, 4);
        assertThat(order.holding()).isFalse();
        assertThat(order.lane()).isEqualTo(LaneOrder.BULK);
    }

    private static DataFrame data(int seq) {
        return new DataFrame(STREAM, Unpooled.wrappedBuffer(new byte[] {(byte) seq}), false);
    }
}
