package dev.tunnel.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;

/**
 * Splits the byte stream into {@link Frame}s. The header's length is checked against the
 * maximum for its type before anything is buffered for it, so a peer cannot make us allocate
 * more than {@code maxDataPayload} per frame.
 *
 * <h3>No copies</h3>
 * Large payloads are never copied: a DATA payload over 4 KiB that lies in one input buffer is a
 * retained slice of it; one that spans several reads is a composite of retained slices of each.
 * Small DATA payloads are copied into a buffer of their own: cheaper than a slice, and a few
 * bytes held by a slow stream do not pin a whole 256 KiB read. Headers split across reads are
 * copied, 10 bytes at most. This is why the decoder does not extend {@code ByteToMessageDecoder}:
 * its cumulation copies every byte that follows a partial frame into a new buffer while slices of
 * earlier frames are still held (until the consumer's socket has written them), which on a busy
 * stream is nearly every byte.
 *
 * <h3>Errors</h3>
 * The byte stream cannot be re-synchronised after a bad frame: the first {@link ProtocolException}
 * is raised once, frames decoded before it have been passed on, and every later byte is dropped.
 *
 * <p>It decodes the frames of a logged-in session only; the control frames a connection starts
 * with (a login, a pooled work connection until its start) go through
 * {@link ControlFrameDecoder}, which hands over the bytes behind them.
 *
 * <p>Threading: one instance per connection, used on its event loop.
 */
public final class FrameDecoder extends ChannelInboundHandlerAdapter {
    /** Default largest DATA payload accepted (senders use chunks of at most 256 KiB). */
    public static final int DEFAULT_MAX_DATA_PAYLOAD = 1 << 20;
    /** Default largest control message accepted. */
    public static final int DEFAULT_MAX_CONTROL_PAYLOAD = 64 * 1024;
    private static final int MAX_OPEN_PAYLOAD = 8 + ControlCodec.MAX_STRING;
    /** A frame up to this size that spans reads is copied into one buffer rather than sliced. */
    private static final int COPY_BELOW = 4096;
    /** A payload arriving in more pieces than this is consolidated (copied): only a pathological peer does that. */
    private static final int MAX_PIECES = 64;

    private final int maxDataPayload;
    private final int maxControlPayload;
    private final byte[] header = new byte[Frame.HEADER_LENGTH];
    private int headerBytes;
    private boolean inPayload;
    private byte type;
    private byte flags;
    private int streamId;
    private int length;
    private int remaining;
    private ByteBuf payload;
    private boolean failed;

    public FrameDecoder() {
        this(DEFAULT_MAX_DATA_PAYLOAD, DEFAULT_MAX_CONTROL_PAYLOAD);
    }

    public FrameDecoder(int maxDataPayload, int maxControlPayload) {
        this.maxDataPayload = maxDataPayload;
        this.maxControlPayload = maxControlPayload;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (!failed) {
                decode(ctx, in);
            }
        } catch (DecoderException e) {
            failed = true;
            releasePayload();
            throw e;
        } catch (RuntimeException e) {
            failed = true;
            releasePayload();
            throw new DecoderException(e);
        } finally {
            in.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releasePayload();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releasePayload();
    }

    private void decode(ChannelHandlerContext ctx, ByteBuf in) {
        while (in.isReadable()) {
            if (!inPayload) {
                if (!readHeader(in)) {
                    return;
                }
                if (remaining == 0) {
                    emit(ctx, Unpooled.EMPTY_BUFFER);
                    continue;
                }
            }
            int n = Math.min(remaining, in.readableBytes());
            if (payload == null && n == remaining && (length > COPY_BELOW || type != Frame.TYPE_DATA)) {
                remaining = 0;
                emit(ctx, in.readRetainedSlice(n));
                continue;
            }
            addPiece(ctx, in, n);
            remaining -= n;
            if (remaining == 0) {
                ByteBuf whole = payload;
                payload = null;
                emit(ctx, whole);
            }
        }
    }

    /** Reads the header (from {@code in} directly when it holds all of it); false if more bytes are needed. */
    private boolean readHeader(ByteBuf in) {
        long length;
        if (headerBytes == 0 && in.readableBytes() >= Frame.HEADER_LENGTH) {
            int start = in.readerIndex();
            type = in.getByte(start);
            flags = in.getByte(start + 1);
            streamId = in.getInt(start + 2);
            length = in.getUnsignedInt(start + 6);
            in.skipBytes(Frame.HEADER_LENGTH);
        } else {
            int n = Math.min(Frame.HEADER_LENGTH - headerBytes, in.readableBytes());
            in.readBytes(header, headerBytes, n);
            headerBytes += n;
            if (headerBytes < Frame.HEADER_LENGTH) {
                return false;
            }
            headerBytes = 0;
            type = header[0];
            flags = header[1];
            streamId = intAt(header, 2);
            length = intAt(header, 6) & 0xFFFFFFFFL;
        }
        checkHeader(type, streamId, length);
        this.length = (int) length;
        remaining = (int) length;
        inPayload = true;
        return true;
    }

    /**
     * Adds the next {@code n} bytes of {@code in} to a payload that spans reads: copied into one
     * buffer when the whole frame is small (control frames, short DATA: slicing would cost more
     * than the copy), else as a retained slice of the read.
     */
    private void addPiece(ChannelHandlerContext ctx, ByteBuf in, int n) {
        if (payload == null) {
            if (length <= COPY_BELOW) {
                payload = ctx.alloc().buffer(length);
            } else {
                payload = in.readRetainedSlice(n);
                return;
            }
        }
        if (payload instanceof CompositeByteBuf composite) {
            composite.addComponent(true, in.readRetainedSlice(n));
        } else if (length <= COPY_BELOW) {
            payload.writeBytes(in, n);
        } else {
            CompositeByteBuf composite = ctx.alloc().compositeBuffer(MAX_PIECES);
            composite.addComponent(true, payload);
            composite.addComponent(true, in.readRetainedSlice(n));
            payload = composite;
        }
    }

    /** Passes on the frame whose header was read last; takes ownership of {@code body}. */
    private void emit(ChannelHandlerContext ctx, ByteBuf body) {
        inPayload = false;
        Frame frame;
        if (type == Frame.TYPE_DATA) {
            frame = new DataFrame(streamId, body, (flags & Frame.FLAG_FIN) != 0);
        } else if (type == Frame.TYPE_OPEN && (flags & Frame.FLAG_DATA) != 0) {
            emitOpenData(ctx, body);
            return;
        } else {
            try {
                frame = decodeControl(type, flags, streamId, body);
            } finally {
                body.release();
            }
        }
        ctx.fireChannelRead(frame);
    }

    /**
     * OPEN with {@link Frame#FLAG_DATA}: passes on the {@link OpenFrame}, then its first bytes as a
     * {@link DataFrame} (a retained slice of {@code body}, which this releases).
     */
    private void emitOpenData(ChannelHandlerContext ctx, ByteBuf body) {
        OpenFrame open;
        DataFrame data;
        try {
            open = readOpen(streamId, body);
            data = new DataFrame(streamId, body.readRetainedSlice(body.readableBytes()), (flags & Frame.FLAG_FIN) != 0);
        } finally {
            body.release();
        }
        try {
            ctx.fireChannelRead(open);
        } catch (RuntimeException e) {
            data.release();
            throw e;
        }
        ctx.fireChannelRead(data);
    }

    private void checkHeader(byte type, int streamId, long length) {
        long max;
        switch (type) {
            case Frame.TYPE_CONTROL -> {
                max = maxControlPayload;
                if (streamId != 0) {
                    throw new ProtocolException("control frame on stream " + streamId + " (expected 0)");
                }
            }
            case Frame.TYPE_DATA -> max = maxDataPayload;
            case Frame.TYPE_OPEN -> max = (flags & Frame.FLAG_DATA) != 0 ? MAX_OPEN_PAYLOAD + DataFrame.MAX_IN_OPEN
                    : MAX_OPEN_PAYLOAD;
            case Frame.TYPE_WINDOW_UPDATE, Frame.TYPE_RESET -> {
                if (length != 4) {
                    throw new ProtocolException("frame type 0x" + Integer.toHexString(type & 0xff)
                            + " has length " + length + " (expected 4)");
                }
                max = 4;
            }
            default -> throw new ProtocolException("unknown frame type 0x" + Integer.toHexString(type & 0xff));
        }
        if (type != Frame.TYPE_CONTROL && streamId == 0) {
            throw new ProtocolException("frame type 0x" + Integer.toHexString(type & 0xff) + " on stream 0");
        }
        if (length > max) {
            throw new ProtocolException("frame length " + length + " exceeds maximum " + max);
        }
    }

    /** Decodes a frame other than DATA from its whole payload. */
    private static Frame decodeControl(byte type, byte flags, int streamId, ByteBuf in) {
        return switch (type) {
            case Frame.TYPE_WINDOW_UPDATE -> {
                int increment = in.readInt();
                if (increment <= 0) {
                    throw new ProtocolException("window update of " + Integer.toUnsignedString(increment)
                            + " on stream " + streamId + " (expected 1.." + Integer.MAX_VALUE + ")");
                }
                yield new WindowUpdateFrame(streamId, increment);
            }
            case Frame.TYPE_RESET -> new ResetFrame(streamId, in.readInt());
            case Frame.TYPE_OPEN -> decodeOpen(streamId, in);
            default -> new ControlFrame(ControlCodec.decode(in));
        };
    }

    private static OpenFrame decodeOpen(int streamId, ByteBuf payload) {
        OpenFrame open = readOpen(streamId, payload);
        if (payload.isReadable()) {
            throw new ProtocolException("open frame has " + payload.readableBytes() + " trailing bytes");
        }
        return open;
    }

    /** Reads an OPEN's fields, leaving {@code payload} at what follows them. */
    private static OpenFrame readOpen(int streamId, ByteBuf payload) {
        if (payload.readableBytes() < 4) {
            throw new ProtocolException("open frame truncated");
        }
        int proxyId = payload.readInt();
        String source = ControlCodec.readString(payload);
        return new OpenFrame(streamId, proxyId, source);
    }

    private static int intAt(byte[] bytes, int i) {
        return (bytes[i] & 0xff) << 24 | (bytes[i + 1] & 0xff) << 16 | (bytes[i + 2] & 0xff) << 8 | bytes[i + 3] & 0xff;
    }

    private void releasePayload() {
        if (payload != null) {
            ReferenceCountUtil.safeRelease(payload);
            payload = null;
        }
    }
}
