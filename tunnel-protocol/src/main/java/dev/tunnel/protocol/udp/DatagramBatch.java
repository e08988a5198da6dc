package dev.tunnel.protocol.udp;

import dev.tunnel.protocol.mux.MuxStream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The datagrams one read of a UDP socket brings for one stream, framed as {@link DatagramFrames}
 * into one contiguous buffer and written onto the stream as one write when the read is complete.
 *
 * <p>Contiguous, not a composite of each datagram's header and payload: TLS encrypts each
 * component of a composite as a record of its own, which made two records per datagram (a
 * 2-byte one and the payload's) instead of one per 16 KiB, and as many to decrypt at the far
 * end. Copying a datagram's bytes once here costs far less than that, and frees the socket's
 * receive buffer at once.
 *
 * <h3>Bounds</h3>
 * A datagram is added while the stream's queue and the batch together stay within
 * {@link UdpLimits#STREAM_QUEUE}; otherwise it is dropped and counted ({@link UdpDrops}).
 *
 * <h3>Reference counting</h3>
 * {@link #add} takes ownership of the payload (copied, then released). The batch's buffer passes
 * to the stream at {@link #flush()}; {@link #release()} frees an unflushed batch.
 *
 * <p>Not thread-safe: one instance per stream, on the stream's event loop.
 */
final class DatagramBatch {
    private final MuxStream stream;
    private final ByteBufAllocator alloc;
    private final UdpDrops drops;
    private ByteBuf batch;

    DatagramBatch(MuxStream stream, ByteBufAllocator alloc, UdpDrops drops) {
        this.stream = stream;
        this.alloc = alloc;
        this.drops = drops;
    }

    /**
     * Frames {@code payload} (owned) into the batch, or drops it (counted, as coming from
     * {@code peer}) when the stream's queue is full or the stream is closed.
     *
     * @return true when this datagram started the batch (the owner must {@link #flush()} it)
     */
    boolean add(ByteBuf payload, Object peer) {
        int length = payload.readableBytes();
        int framed = length + DatagramFrames.HEADER_BYTES;
        int batched = batch == null ? 0 : batch.readableBytes();
        if (!stream.canQueue(batched + framed, UdpLimits.STREAM_QUEUE)) {
            payload.release();
            drops.drop(UdpDrops.tunnelFull(stream), peer);
            return false;
        }
        boolean first = batch == null;
        if (first) {
            // room for a full read of datagrams like this one; grows (up to the queue bound) if they are larger
            batch = alloc.directBuffer(Math.min(framed * UdpLimits.DATAGRAMS_PER_READ, UdpLimits.STREAM_QUEUE),
                    UdpLimits.STREAM_QUEUE);
        }
        try {
            batch.writeShort(length).writeBytes(payload);
        } finally {
            payload.release();
        }
        return first;
    }

    /** Bytes framed since the last flush. */
    int bytes() {
        return batch == null ? 0 : batch.readableBytes();
    }

    /** Writes the datagrams framed since the last call onto the stream, as one buffer. */
    void flush() {
        ByteBuf out = batch;
        batch = null;
        if (out != null) {
            stream.write(out); // released by the stream if it has closed meanwhile
        }
    }

    /** Frees datagrams framed and not flushed (the stream ended). */
    void release() {
        if (batch != null) {
            batch.release();
            batch = null;
        }
    }
}
