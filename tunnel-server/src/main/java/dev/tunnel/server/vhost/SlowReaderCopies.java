package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * Keeps a visitor that reads slowly from pinning the tunnel's read buffers: response bytes are
 * slices of tunnel reads of up to 256 KiB, and a slice written to a socket that has not taken
 * what it was given before may wait long, holding its whole parent buffer. Such a slice is
 * copied into a buffer of its own size first; a socket that keeps up gets the slice itself.
 * The same rule as {@link dev.tunnel.protocol.relay.StreamRelay}'s for raw streams.
 *
 * <p>Threading: the channel's event loop.
 */
final class SlowReaderCopies {
    /** Smaller slices pin little; copying them would cost more than it frees. */
    private static final int COPY_ABOVE = 4096;

    private SlowReaderCopies() {
    }

    /** {@code data} itself, or a copy of it (then {@code data} is released) when {@code socket} is backed up. */
    static ByteBuf forWrite(Channel socket, ByteBuf data) {
        if (data.readableBytes() <= COPY_ABOVE) {
            return data;
        }
        ChannelOutboundBuffer pending = socket.unsafe().outboundBuffer();
        if (pending == null || pending.totalPendingWriteBytes() == 0) {
            return data;
        }
        ByteBuf copy;
        try {
            copy = socket.alloc().directBuffer(data.readableBytes());
        } catch (OutOfMemoryError e) {
            return data; // no memory for the copy: keep the slice
        }
        copy.writeBytes(data);
        data.release();
        return copy;
    }
}
