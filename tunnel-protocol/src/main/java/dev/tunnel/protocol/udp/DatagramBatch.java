package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.mux.MuxStream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The datagrams one read of a UDP socket brings for one stream, framed as {@link DatagramFrames}
 * into one contiguous buffer and written onto the stream as one write when the read is complete;
 * those the stream cannot take yet wait in the association's entrance queue
 * ({@link WaitingDatagrams}) and follow, in order, when the stream says it is writable.
 *
 * <p>Contiguous, not a composite of each datagram's header and payload: TLS encrypts each
 * component of a composite as a record of its own, which made two records per datagram (a
 * 2-byte one and the payload's) instead of one per 16 KiB, and as many to decrypt at the far
 * end. Copying a datagram's bytes once here costs far less than that, and frees the socket's
 * receive buffer at once.
 *
 * <h3>Bounds</h3>
 * The stream itself holds at most {@link UdpLimits#STREAM_QUEUE} bytes waiting for credit or for
 * the connection (with the batch being built); beyond that, datagrams wait here, up to
 * {@link UdpLimits#ASSOCIATION_QUEUE} per association and the proxy's {@link UdpQueueBudget},
 * dropping the oldest when full. What was written onto the stream is never dropped.
 *
 * <h3>Reference counting</h3>
 * {@link #add} takes ownership of the payload (copied, then released). The batch's buffer passes
 * to the stream at {@link #flush()}; {@link #release()} frees an unflushed batch and what waits.
 *
 * <p>Not thread-safe: one instance per stream, on the stream's event loop.
 */
final class DatagramBatch {
    private final MuxStream stream;
    private final ByteBufAllocator alloc;
    private final UdpDrops drops;
    private final WaitingDatagrams waiting;
    private ByteBuf batch;
    private boolean flushPending;

    DatagramBatch(MuxStream stream, ByteBufAllocator alloc, UdpDrops drops, UdpQueueBudget budget) {
        this.stream = stream;
        this.alloc = alloc;
        this.drops = drops;
        this.waiting = new WaitingDatagrams(UdpLimits.ASSOCIATION_QUEUE, budget, drops);
    }

    /**
     * Frames {@code payload} (owned) into the batch when the stream has room and nothing waits
     * before it; otherwise queues it in the entrance queue (dropping the oldest waiting when
     * full), or drops it when the stream is closed.
     *
     * @return true when the owner must call {@link #flush()} at the end of this read (the first
     *         datagram since the last flush that was framed or queued)
     */
    boolean add(ByteBuf payload, Object peer) {
        if (stream.isClosed()) {
            payload.release();
            drops.drop(UdpDrops.Reason.TUNNEL_FULL, peer);
            return false;
        }
        int framed = payload.readableBytes() + DatagramFrames.HEADER_BYTES;
        if (waiting.isEmpty() && stream.canQueue(bytes() + framed, UdpLimits.STREAM_QUEUE)) {
            frame(payload);
        } else {
            waiting.offer(payload, UdpDrops.tunnelFull(stream), peer);
        }
        boolean first = !flushPending;
        flushPending = true;
        return first;
    }

    private void frame(ByteBuf payload) {
        int length = payload.readableBytes();
        if (batch == null) {
            // room for a full read of datagrams like this one; grows (up to the queue bound) if they are larger
            int framed = length + DatagramFrames.HEADER_BYTES;
            batch = alloc.directBuffer(Math.min(framed * UdpLimits.DATAGRAMS_PER_READ, UdpLimits.STREAM_QUEUE),
                    UdpLimits.STREAM_QUEUE);
        }
        try {
            batch.writeShort(length).writeBytes(payload);
        } finally {
            payload.release();
        }
    }

    /** Bytes framed since the last flush. */
    int bytes() {
        return batch == null ? 0 : batch.readableBytes();
    }

    /** Payload bytes waiting in the entrance queue. */
    int waitingBytes() {
        return waiting.bytes();
    }

    /**
     * The read is over, or the stream can take more: writes what was framed, then the oldest
     * waiting datagrams, onto the stream (one write per {@link UdpLimits#STREAM_QUEUE} at most),
     * as long as it takes them; if some still wait, the stream calls {@code onWritable} (and so
     * this) once it drains.
     */
    void flush() {
        flushPending = false;
        do {
            while (!waiting.isEmpty() && stream.canQueue(bytes() + waiting.peekLength() + DatagramFrames.HEADER_BYTES,
                    UdpLimits.STREAM_QUEUE)) {
                frame(waiting.poll());
            }
            ByteBuf out = batch;
            batch = null;
            if (out != null) {
                stream.write(out); // released by the stream if it has closed meanwhile
            }
        } while (!waiting.isEmpty() && stream.isWritable()); // false arms onWritable
        if (stream.isClosed()) {
            waiting.release();
        }
    }

    /** Frees datagrams framed and not flushed, and those waiting (the stream ended). */
    void release() {
        if (batch != null) {
            batch.release();
            batch = null;
        }
        waiting.release();
    }
}
