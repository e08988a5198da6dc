package dev.tunnel.protocol.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.helpers.NOPLogger;

/**
 * The entrance queue of an association ({@link WaitingDatagrams}): order kept, the oldest dropped
 * when its own bound or the proxy's shared budget is reached, and every byte freed and given
 * back on release (the allocator's direct memory returns to zero).
 */
@Timeout(10)
class WaitingDatagramsTest {
    private final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(true);
    private final UdpDrops drops = new UdpDrops(NOPLogger.NOP_LOGGER, "proxy [test]");

    private ByteBuf datagram(int seq, int size) {
        ByteBuf b = alloc.directBuffer(size);
        b.writeInt(seq).writeZero(size - 4);
        return b;
    }

    private static List<Integer> drain(WaitingDatagrams queue) {
        List<Integer> seqs = new ArrayList<>();
        ByteBuf d;
        while ((d = queue.poll()) != null) {
            seqs.add(d.getInt(d.readerIndex()));
            d.release();
        }
        return seqs;
    }

    @Test
    void datagramsLeaveInTheOrderTheyCame() {
        WaitingDatagrams queue = new WaitingDatagrams(10_000, UdpQueueBudget.perProxy(), drops);
        for (int i = 0; i < 5; i++) {
            queue.offer(datagram(i, 1000), UdpDrops.Reason.NO_CREDIT, "peer");
        }
        assertThat(queue.bytes()).isEqualTo(5000);
        assertThat(drain(queue)).containsExactly(0, 1, 2, 3, 4);
        assertThat(drops.total()).isZero();
    }

    @Test
    void aFullQueueDropsTheOldestWaitingDatagramNotTheNewOne() {
        WaitingDatagrams queue = new WaitingDatagrams(3000, UdpQueueBudget.perProxy(), drops);
        for (int i = 0; i < 10; i++) {
            queue.offer(datagram(i, 1000), UdpDrops.Reason.NO_CREDIT, "peer");
        }
        assertThat(drain(queue)).containsExactly(7, 8, 9);
        assertThat(drops.count(UdpDrops.Reason.NO_CREDIT)).isEqualTo(7);
    }

    @Test
    void theProxyBudgetIsSharedAndASpentBudgetDropsTheArrivingAssociationsOldest() {
        UdpQueueBudget budget = new UdpQueueBudget(4000);
        WaitingDatagrams a = new WaitingDatagrams(10_000, budget, drops);
        WaitingDatagrams b = new WaitingDatagrams(10_000, budget, drops);
        for (int i = 0; i < 3; i++) {
            a.offer(datagram(i, 1000), UdpDrops.Reason.TUNNEL_FULL, "a");
        }
        b.offer(datagram(100, 1000), UdpDrops.Reason.TUNNEL_FULL, "b");
        assertThat(budget.used()).isEqualTo(4000);

        b.offer(datagram(101, 1000), UdpDrops.Reason.TUNNEL_FULL, "b"); // b gives up its own oldest
        a.offer(datagram(3, 1000), UdpDrops.Reason.TUNNEL_FULL, "a");   // a gives up its own oldest
        assertThat(budget.used()).isEqualTo(4000);
        assertThat(drops.count(UdpDrops.Reason.PROXY_FULL)).isEqualTo(2);
        assertThat(drain(a)).containsExactly(1, 2, 3);
        assertThat(drain(b)).containsExactly(101);
        assertThat(budget.used()).isZero();
    }

    @Test
    void anEmptyQueueFindingTheBudgetSpentByOthersDropsTheNewDatagram() {
        UdpQueueBudget budget = new UdpQueueBudget(2000);
        WaitingDatagrams a = new WaitingDatagrams(10_000, budget, drops);
        WaitingDatagrams b = new WaitingDatagrams(10_000, budget, drops);
        a.offer(datagram(0, 1000), UdpDrops.Reason.TUNNEL_FULL, "a");
        a.offer(datagram(1, 1000), UdpDrops.Reason.TUNNEL_FULL, "a");
        b.offer(datagram(100, 1000), UdpDrops.Reason.TUNNEL_FULL, "b");
        assertThat(b.isEmpty()).isTrue();
        assertThat(drops.count(UdpDrops.Reason.PROXY_FULL)).isEqualTo(1);
        assertThat(drain(a)).containsExactly(0, 1);
        assertThat(alloc.metric().usedDirectMemory()).as("direct memory held").isZero();
    }

    @Test
    void releaseFreesEveryWaitingDatagramAndGivesItsBytesBack() {
        UdpQueueBudget budget = new UdpQueueBudget(1 << 20);
        WaitingDatagrams queue = new WaitingDatagrams(1 << 20, budget, drops);
        for (int i = 0; i < 100; i++) {
            queue.offer(datagram(i, 1200), UdpDrops.Reason.TUNNEL_FULL, "peer");
        }
        assertThat(alloc.metric().usedDirectMemory()).isGreaterThanOrEqualTo(100 * 1200);
        queue.release();
        assertThat(queue.bytes()).isZero();
        assertThat(budget.used()).isZero();
        assertThat(alloc.metric().usedDirectMemory()).as("direct memory held").isZero();
    }
}
