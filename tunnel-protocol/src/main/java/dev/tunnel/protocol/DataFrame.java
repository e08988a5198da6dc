package dev.tunnel.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * Stream bytes; {@code fin} marks the sender's half-close. Holds a reference to its payload:
 * whoever takes the frame releases it (the decoder hands out retained slices, no copies).
 */
public final class DataFrame extends DefaultByteBufHolder implements Frame {
    private final int streamId;
    private final boolean fin;

    public DataFrame(int streamId, ByteBuf data, boolean fin) {
        super(data);
        this.streamId = streamId;
        this.fin = fin;
    }

    @Override
    public int streamId() {
        return streamId;
    }

    public boolean fin() {
        return fin;
    }

    @Override
    public DataFrame replace(ByteBuf content) {
        return new DataFrame(streamId, content, fin);
    }

    @Override
    public String toString() {
        return "DataFrame(stream=" + streamId + ", bytes=" + content().readableBytes() + ", fin=" + fin + ")";
    }
}
