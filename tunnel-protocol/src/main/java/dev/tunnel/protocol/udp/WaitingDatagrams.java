package dev.tunnel.protocol.udp;

import io.netty.buffer.ByteBuf;
import java.util.ArrayDeque;

/**
 * One association's entrance queue: the datagrams that arrived while its stream could take no
 * more, waiting for the stream's credit or the tunnel connection. Bounded twice, and full means
 * the OLDEST waiting datagram goes, not the new one: UDP protocols (games, voice, QUIC, DNS
 * retries) want the latest data, and a datagram already written onto the stream is never
 * touched, so a burst that crossed the link arrives whole.
 * <ul>
 *   <li>{@code limit} bytes for this association (reason {@code tunnel_full} or {@code no_credit});</li>
 *   <li>the proxy's shared {@link UdpQueueBudget} (reason {@code proxy_full}).</li>
 * </ul>
 *
 * <h3>Reference counting</h3>
 * {@link #offer} takes ownership of the payload: it keeps a copy of exactly its size (the
 * socket's payload is often a slice of a whole {@code recvmmsg} buffer, which it would keep
 * alive) and releases the payload. {@link #poll()} hands a datagram to the caller;
 * {@link #release()} frees what waits and gives its bytes back to the budget.
 *
 * <p>Not thread-safe: one instance per association, on its event loop.
 */
final class WaitingDatagrams {
    private final ArrayDeque<ByteBuf> queue = new ArrayDeque<>();
    private final int limit;
    private final UdpQueueBudget budget;
    private final UdpDrops drops;
    private int bytes;

    WaitingDatagrams(int limit, UdpQueueBudget budget, UdpDrops drops) {
        this.limit = limit;
        this.budget = budget;
        this.drops = drops;
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Bytes of payload waiting. */
    int bytes() {
        return bytes;
    }

    int size() {
        return queue.size();
    }

    /** Payload bytes of the oldest waiting datagram; the queue must not be empty. */
    int peekLength() {
        return queue.peekFirst().readableBytes();
    }

    /**
     * Queues {@code payload} (owned), dropping the oldest waiting datagrams as needed to stay
     * within both bounds; the payload itself is dropped only when the budget is spent by the
     * proxy's other associations and this one has nothing left to give up.
     *
     * @param full  why a datagram dropped for this association's own bound was dropped
     * @param peer  where the datagram came from, for the drop log
     */
    void offer(ByteBuf payload, UdpDrops.Reason full, Object peer) {
        int length = payload.readableBytes();
        while (!queue.isEmpty() && bytes + length > limit) {
            dropOldest(full, peer);
        }
        boolean taken;
        while (!(taken = budget.tryTake(length)) && !queue.isEmpty()) {
            dropOldest(UdpDrops.Reason.PROXY_FULL, peer);
        }
        if (!taken || length > limit) {
            if (taken) {
                budget.give(length);
            }
            payload.release();
            drops.drop(taken ? full : UdpDrops.Reason.PROXY_FULL, peer);
            return;
        }
        ByteBuf copy;
        try {
            copy = payload.alloc().directBuffer(length, length).writeBytes(payload);
        } finally {
            payload.release();
        }
        queue.addLast(copy);
        bytes += length;
    }

    /** Takes the oldest waiting datagram (the caller owns it), or null. */
    ByteBuf poll() {
        ByteBuf d = queue.pollFirst();
        if (d != null) {
            bytes -= d.readableBytes();
            budget.give(d.readableBytes());
        }
        return d;
    }

    private void dropOldest(UdpDrops.Reason reason, Object peer) {
        ByteBuf oldest = poll();
        oldest.release();
        drops.drop(reason, peer);
    }

    /** Frees every waiting datagram (the association ended) and gives its bytes back to the budget. */
    void release() {
        ByteBuf d;
        while ((d = poll()) != null) {
            d.release();
        }
    }
}
