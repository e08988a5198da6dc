package dev.tunnel.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * Writes {@link Frame}s. A DATA payload is passed on as its own buffer behind a small header
 * (a gathering write, no copy) unless it is small enough that one buffer is cheaper.
 */
@Sharable
public final class FrameEncoder extends MessageToMessageEncoder<Frame> {
    /** Payloads up to this size are copied behind the header into one buffer. */
    private static final int COPY_THRESHOLD = 1024;

    public FrameEncoder() {
        super(Frame.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Frame frame, List<Object> out) {
        if (frame instanceof DataFrame data && data.opening() != null) {
            encodeOpenData(ctx, data, out);
            return;
        }
        if (frame instanceof DataFrame data) {
            ByteBuf payload = data.content();
            int length = payload.readableBytes();
            if (length <= COPY_THRESHOLD) {
                ByteBuf buf = ctx.alloc().directBuffer(Frame.HEADER_LENGTH + length);
                writeHeader(buf, Frame.TYPE_DATA, data.fin() ? Frame.FLAG_FIN : 0, data.streamId(), length);
                buf.writeBytes(payload, payload.readerIndex(), length);
                out.add(buf);
            } else {
                ByteBuf header = ctx.alloc().directBuffer(Frame.HEADER_LENGTH);
                writeHeader(header, Frame.TYPE_DATA, data.fin() ? Frame.FLAG_FIN : 0, data.streamId(), length);
                out.add(header);
                out.add(payload.retain());
            }
            return;
        }
        ByteBuf buf = ctx.alloc().directBuffer(64);
        int start = buf.writerIndex();
        buf.writerIndex(start + Frame.HEADER_LENGTH);
        byte type;
        byte flags = 0;
        try {
            if (frame instanceof WindowUpdateFrame w) {
                type = Frame.TYPE_WINDOW_UPDATE;
                buf.writeInt(w.increment());
            } else if (frame instanceof ResetFrame r) {
                type = Frame.TYPE_RESET;
                buf.writeInt(r.code());
            } else if (frame instanceof OpenFrame o) {
                type = Frame.TYPE_OPEN;
                writeOpenFields(buf, o);
            } else {
                type = Frame.TYPE_CONTROL;
                ControlCodec.encode(((ControlFrame) frame).message(), buf);
            }
        } catch (RuntimeException e) {
            // e.g. a string over ControlCodec.MAX_STRING: buf is not in out yet, so nobody else frees it
            buf.release();
            throw e;
        }
        int length = buf.writerIndex() - start - Frame.HEADER_LENGTH;
        buf.setByte(start, type);
        buf.setByte(start + 1, flags);
        buf.setInt(start + 2, frame.streamId());
        buf.setInt(start + 6, length);
        out.add(buf);
    }

    /**
     * OPEN with {@link Frame#FLAG_DATA}: header, proxy id, source, then the first bytes, in one
     * buffer when they are small, else with the payload passed on as its own buffer.
     */
    private static void encodeOpenData(ChannelHandlerContext ctx, DataFrame frame, List<Object> out) {
        ByteBuf payload = frame.content();
        int dataLength = payload.readableBytes();
        boolean copy = dataLength <= COPY_THRESHOLD;
        ByteBuf buf = ctx.alloc().directBuffer(64 + (copy ? dataLength : 0));
        try {
            int start = buf.writerIndex();
            buf.writerIndex(start + Frame.HEADER_LENGTH);
            writeOpenFields(buf, frame.opening());
            int length = buf.writerIndex() - start - Frame.HEADER_LENGTH + dataLength;
            buf.setByte(start, Frame.TYPE_OPEN);
            buf.setByte(start + 1, Frame.FLAG_DATA | (frame.fin() ? Frame.FLAG_FIN : 0));
            buf.setInt(start + 2, frame.streamId());
            buf.setInt(start + 6, length);
            if (copy) {
                buf.writeBytes(payload, payload.readerIndex(), dataLength);
            }
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        out.add(buf);
        if (!copy) {
            out.add(payload.retain());
        }
    }

    private static void writeOpenFields(ByteBuf buf, OpenFrame open) {
        buf.writeInt(open.proxyId());
        ControlCodec.writeString(buf, open.source());
    }

    private static void writeHeader(ByteBuf buf, byte type, int flags, int streamId, int length) {
        buf.writeByte(type);
        buf.writeByte(flags);
        buf.writeInt(streamId);
        buf.writeInt(length);
    }
}
