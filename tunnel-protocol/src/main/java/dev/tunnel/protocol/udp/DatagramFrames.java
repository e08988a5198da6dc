package dev.tunnel.protocol.udp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * How datagrams travel on a stream: each one as a u16 big-endian length and its bytes, so a
 * datagram is never split or merged however the stream's bytes are cut into DATA frames. A
 * zero-length datagram is a valid frame. {@link DatagramDecoder} reads them back.
 */
public final class DatagramFrames {
    /** Bytes of the length prefix. */
    public static final int HEADER_BYTES = 2;
    /** The largest payload a frame can carry (the largest UDP payload as well). */
    public static final int MAX_PAYLOAD = 0xFFFF;

    private DatagramFrames() {
    }

    /**
     * Prefixes {@code payload} with its length, without copying it: the result is a composite of
     * a 2-byte header and the payload. Takes ownership of {@code payload}.
     *
     * @throws IllegalArgumentException when the payload is over {@link #MAX_PAYLOAD} (it is released)
     */
    public static ByteBuf encode(ByteBufAllocator alloc, ByteBuf payload) {
        int length = payload.readableBytes();
        if (length > MAX_PAYLOAD) {
            payload.release();
            throw new IllegalArgumentException("datagram of " + length + " bytes exceeds maximum " + MAX_PAYLOAD);
        }
        ByteBuf header = alloc.buffer(HEADER_BYTES, HEADER_BYTES).writeShort(length);
        return alloc.compositeBuffer(2).addComponents(true, header, payload);
    }
}
