package dev.tunnel.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * Stream bytes; {@code fin} marks the sender's half-close. Holds a reference to its payload:
 * whoever takes the frame releases it (the decoder hands out retained slices, no copies).
 */
public final class DataFrame extends DefaultByteBufHolder implements Frame {
    /** Most bytes a DATA frame may carry when it goes out inside its stream's OPEN ({@link #opening}). */
    public static final int MAX_IN_OPEN = 16 * 1024;

    private final int streamId;
    private final boolean fin;
    private final OpenFrame open;

    public DataFrame(int streamId, ByteBuf data, boolean fin) {
        this(streamId, data, fin, null);
    }

    private DataFrame(int streamId, ByteBuf data, boolean fin, OpenFrame open) {
        super(data);
        this.streamId = streamId;
        this.fin = fin;
        this.open = open;
    }

    /**
     * The first bytes of a stream sent inside its OPEN (OPEN with {@link Frame#FLAG_DATA}), only to
     * a peer that listed {@link Capabilities#OPEN_DATA}: one header, buffer and decode fewer for a
     * connection whose first bytes come with it. The receiver's decoder hands on the
     * {@link OpenFrame} and then a plain DATA frame.
     */
    public static DataFrame inOpen(OpenFrame open, ByteBuf data, boolean fin) {
        return new DataFrame(open.streamId(), data, fin, open);
    }

    /** The OPEN this frame goes out in, or null for a DATA frame of its own. */
    public OpenFrame opening() {
        return open;
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
        return new DataFrame(streamId, content, fin, open);
    }

    @Override
    public String toString() {
        return "DataFrame(stream=" + streamId + ", bytes=" + content().readableBytes() + ", fin=" + fin
                + (open != null ? ", in " + open : "") + ")";
    }
}
