package dev.tunnel.bench;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One direction of a link that every connection through the emulator shares, as a home uplink
 * is: one rate and one byte-limited queue, drained by one timer one packet (at most
 * {@value #PACKET} bytes) at a time. A packet leaves when the link has serialized it; the
 * {@link DelayPipe} it came from then adds the propagation delay.
 *
 * <h3>Disciplines</h3>
 * <ul>
 *   <li>{@link Discipline#FIFO}: one queue for every flow (a cable modem's upload buffer): a
 *       sparse flow's bytes wait behind whatever the bulk flows queued before them.
 *   <li>{@link Discipline#FAIR}: a queue per flow (one direction of one connection), served by
 *       deficit round robin with a quantum of one packet (fq_codel without the codel part): a
 *       sparse flow waits for at most one packet of each other busy flow.
 * </ul>
 *
 * <h3>Full queue: backpressure, not tail drop</h3>
 * A modem drops a packet that finds its buffer full and TCP slows down. A relay of TCP byte
 * streams cannot drop bytes without breaking the stream, so it holds back instead: a flow reads
 * its source only while the queue holds less than {@code limitBytes} ({@link #admits}); the
 * others wait ({@link #await}) and are woken in arrival order as packets leave. The sender then
 * sees a full queue as a slow link rather than as loss, and the bytes it writes beyond the queue
 * wait in its own socket buffers (the emulator keeps its receive buffers small). Under
 * {@code FAIR} a flow with less than {@value #SPARSE_BYTES} bytes queued is always admitted, as
 * fq_codel drops from the fattest flow and never from a sparse one. One read may overshoot the
 * limit by what it returns (at most 64 KiB per flow).
 *
 * <h3>Reference counting</h3>
 * Queued buffers are owned here until their last packet leaves (a packet is a retained slice);
 * {@link #drop} and {@link #releaseAll} release what a cut flow or a stopping emulator leaves.
 *
 * <p>Threading: runs on one event loop, the one every {@link DelayPipe} feeding it runs on (the
 * emulator runs a single event loop when the link is shared).
 */
final class SharedBottleneck {
    /** How the queue is shared between flows. */
    enum Discipline { FIFO, FAIR }

    /** Bytes per packet on the link: an Ethernet MTU. */
    static final int PACKET = 1500;
    /** Under FAIR, a flow with fewer bytes queued is admitted even when the queue is full. */
    static final int SPARSE_BYTES = 64 << 10;

    private record Item(DelayPipe flow, Object msg) {
    }

    /** Items waiting in order, with the deficit of round robin. */
    private static final class Queue {
        final ArrayDeque<Item> items = new ArrayDeque<>();
        long bytes;
        int deficit;
    }

    private final EventLoop loop;
    private final LinkEmulator link;
    private final long rateBitsPerSecond;
    private final long limitBytes;
    private final Discipline discipline;
    /** Under FIFO the single queue; under FAIR one queue per flow while it holds anything. */
    private final Map<DelayPipe, Queue> queues = new HashMap<>();
    private final Queue shared = new Queue();
    /** Queues holding items, in round-robin order. */
    private final ArrayDeque<Queue> active = new ArrayDeque<>();
    private final Set<DelayPipe> waiting = new LinkedHashSet<>();
    private long queuedBytes;
    /** When the link has finished serializing the last packet that left. */
    private long linkFree = System.nanoTime();
    private boolean timerScheduled;

    SharedBottleneck(EventLoop loop, LinkEmulator link, long rateBitsPerSecond, long limitBytes, Discipline discipline) {
        this.loop = loop;
        this.link = link;
        this.rateBitsPerSecond = rateBitsPerSecond;
        this.limitBytes = limitBytes;
        this.discipline = discipline;
    }

    /** Whether {@code flow} may read its source now (see Full queue above). */
    boolean admits(DelayPipe flow) {
        if (queuedBytes < limitBytes) {
            return true;
        }
        Queue own = discipline == Discipline.FAIR ? queues.get(flow) : null;
        return discipline == Discipline.FAIR && (own == null || own.bytes < SPARSE_BYTES);
    }

    /** {@code flow} was not admitted: it is told to read again once a packet has left. */
    void await(DelayPipe flow) {
        waiting.add(flow);
    }

    /** Queues {@code msg} (a ByteBuf, or an EOF or close marker that takes no time on the link). */
    void offer(DelayPipe flow, Object msg) {
        Queue q = discipline == Discipline.FIFO ? shared : queues.computeIfAbsent(flow, f -> new Queue());
        long now = System.nanoTime();
        if (active.isEmpty() && linkFree - now < 0) {
            linkFree = now; // an idle link does not bank time
        }
        if (q.items.isEmpty()) {
            q.deficit = PACKET; // a flow that starts (again) sends at its first turn
            active.add(q);
        }
        long bytes = msg instanceof ByteBuf b ? b.readableBytes() : 0;
        q.items.add(new Item(flow, msg));
        q.bytes += bytes;
        queuedBytes += bytes;
        scheduleDrain(now);
    }

    /** Drops and releases what {@code flow} has queued (its connection was cut). */
    void drop(DelayPipe flow) {
        waiting.remove(flow);
        Queue q = discipline == Discipline.FIFO ? shared : queues.remove(flow);
        if (q == null) {
            return;
        }
        q.items.removeIf(item -> {
            if (item.flow != flow) {
                return false;
            }
            long bytes = item.msg instanceof ByteBuf b ? b.readableBytes() : 0;
            q.bytes -= bytes;
            queuedBytes -= bytes;
            ReferenceCountUtil.release(item.msg);
            return true;
        });
        if (q.items.isEmpty()) {
            active.remove(q);
        }
    }

    /** The fault that stalled the link has ended: packets leave again. */
    void resume() {
        scheduleDrain(System.nanoTime());
    }

    void releaseAll() {
        for (Queue q : active) {
            q.items.forEach(item -> ReferenceCountUtil.release(item.msg));
            q.items.clear();
        }
        active.clear();
        queues.clear();
        waiting.clear();
        queuedBytes = 0;
    }

    private void scheduleDrain(long now) {
        if (timerScheduled || active.isEmpty() || link.fault() == LinkEmulator.Fault.STALL) {
            return;
        }
        timerScheduled = true;
        loop.schedule(this::drain, Math.max(0, linkFree - now), TimeUnit.NANOSECONDS);
    }

    /** Sends every packet the link has had time for, then wakes the flows waiting for room. */
    private void drain() {
        timerScheduled = false;
        if (link.fault() == LinkEmulator.Fault.STALL) {
            return;
        }
        long now = System.nanoTime();
        while (!active.isEmpty() && linkFree - now <= 0) {
            Item packet = nextPacket();
            long bytes = packet.msg instanceof ByteBuf b ? b.readableBytes() : 0;
            linkFree += bytes * 8L * 1_000_000_000L / rateBitsPerSecond;
            packet.flow.departed(packet.msg, linkFree);
        }
        scheduleDrain(now);
        if (!waiting.isEmpty() && queuedBytes < limitBytes) {
            List<DelayPipe> woken = new ArrayList<>(waiting);
            waiting.clear();
            woken.forEach(DelayPipe::resumeReading);
        }
    }

    /** The next packet by deficit round robin (under FIFO there is one queue, so it is FIFO). */
    private Item nextPacket() {
        for (;;) {
            Queue q = active.peek();
            Item head = q.items.peek();
            Object msg = head.msg;
            int size = msg instanceof ByteBuf b ? Math.min(b.readableBytes(), PACKET) : 0;
            if (q.deficit < size) {
                q.deficit += PACKET;
                active.add(active.poll()); // its turn is over; the quantum waits for the next
                continue;
            }
            q.deficit -= size;
            q.bytes -= size;
            queuedBytes -= size;
            if (msg instanceof ByteBuf b && b.readableBytes() > size) {
                return new Item(head.flow, b.readRetainedSlice(size));
            }
            q.items.poll();
            if (q.items.isEmpty()) {
                active.poll();
                if (q != shared) {
                    queues.remove(head.flow);
                }
            }
            return head;
        }
    }
}
