package dev.tunnel.protocol.udp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.function.Consumer;

/**
 * Splits the bytes of one association's stream back into the datagrams {@link DatagramFrames}
 * framed, whatever the DATA frame boundaries. A datagram longer than {@code maxPacketSize}
 * (this side's {@code udpPacketSize}; the peer's may be larger) is skipped and counted, and the
 * stream stays in step: every byte sequence parses, so fuzzed input can cost at most skipped
 * datagrams, never memory beyond one datagram.
 *
 * <h3>Reference counting</h3>
 * {@link #decode} takes ownership of each chunk. A datagram that lies within one chunk is handed
 * out as a retained slice of it (no copy); one cut across chunks is copied into a buffer of its
 * own size. The consumer owns what it receives. {@link #release()} frees a partial datagram.
 *
 * <p>Not thread-safe: one instance per stream, on the stream's event loop.
 */
public final class DatagramDecoder {
    private final int maxPacketSize;
    private int length = -1;
    private int headerByte = -1;
    private int skip;
    private ByteBuf partial;
    private long oversize;

    public DatagramDecoder(int maxPacketSize) {
        if (maxPacketSize < 1 || maxPacketSize > DatagramFrames.MAX_PAYLOAD) {
            throw new IllegalArgumentException("maxPacketSize: " + maxPacketSize + " (expected: 1-65535)");
        }
        this.maxPacketSize = maxPacketSize;
    }

    /** Datagrams skipped so far for being longer than {@code maxPacketSize}. */
    public long oversize() {
        return oversize;
    }

    /** Decodes what {@code chunk} completes and passes each datagram to {@code out}; releases the chunk. */
    public void decode(ByteBuf chunk, Consumer<ByteBuf> out) {
        try {
            while (chunk.isReadable()) {
                if (skip > 0) {
                    int n = Math.min(skip, chunk.readableBytes());
                    chunk.skipBytes(n);
                    skip -= n;
                } else if (length < 0) {
                    readHeader(chunk, out);
                } else if (partial == null && chunk.readableBytes() >= length) {
                    ByteBuf datagram = chunk.readRetainedSlice(length);
                    length = -1;
                    out.accept(datagram);
                } else {
                    if (partial == null) {
                        partial = chunk.alloc().buffer(length, length);
                    }
                    partial.writeBytes(chunk, Math.min(length - partial.readableBytes(), chunk.readableBytes()));
                    if (partial.readableBytes() == length) {
                        ByteBuf datagram = partial;
                        partial = null;
                        length = -1;
                        out.accept(datagram);
                    }
                }
            }
        } finally {
            chunk.release();
        }
    }

    private void readHeader(ByteBuf chunk, Consumer<ByteBuf> out) {
        int value;
        if (headerByte < 0 && chunk.readableBytes() >= DatagramFrames.HEADER_BYTES) {
            value = chunk.readUnsignedShort();
        } else if (headerByte < 0) {
            headerByte = chunk.readUnsignedByte();
            return;
        } else {
            value = headerByte << 8 | chunk.readUnsignedByte();
            headerByte = -1;
        }
        if (value > maxPacketSize) {
            oversize++;
            skip = value;
        } else if (value == 0) {
            out.accept(Unpooled.EMPTY_BUFFER);
        } else {
            length = value;
        }
    }

    /** Frees a datagram still being assembled; call when the stream ends. */
    public void release() {
        if (partial != null) {
            partial.release();
            partial = null;
        }
    }
}
