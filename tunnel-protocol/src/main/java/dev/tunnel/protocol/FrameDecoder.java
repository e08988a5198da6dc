package dev.tunnel.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits the byte stream into {@link Frame}s. The header's length is checked against the
 * maximum for its type before anything is buffered for it, so a peer cannot make us allocate
 * more than {@code maxDataPayload} per frame. DATA payloads are retained slices of the input,
 * not copies.
 *
 * <p>A {@link ControlMessage.StartWorkConn} is the last frame of a work connection: the decoder
 * stops right behind it and decodes nothing more, so the handler that receives it can remove
 * this decoder and get the raw bytes that follow (a removed {@code ByteToMessageDecoder} passes
 * its remaining bytes on).
 */
public final class FrameDecoder extends ByteToMessageDecoder {
    /** Default largest DATA payload accepted (senders use 64 KiB chunks). */
    public static final int DEFAULT_MAX_DATA_PAYLOAD = 1 << 20;
    /** Default largest control message accepted. */
    public static final int DEFAULT_MAX_CONTROL_PAYLOAD = 64 * 1024;
    private static final int MAX_OPEN_PAYLOAD = 8 + ControlCodec.MAX_STRING;

    private final int maxDataPayload;
    private final int maxControlPayload;
    private boolean failed;
    private boolean rawFollows;

    public FrameDecoder() {
        this(DEFAULT_MAX_DATA_PAYLOAD, DEFAULT_MAX_CONTROL_PAYLOAD);
    }

    public FrameDecoder(int maxDataPayload, int maxControlPayload) {
        this.maxDataPayload = maxDataPayload;
        this.maxControlPayload = maxControlPayload;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        if (rawFollows) {
            return; // raw bytes stay in the cumulation until this decoder is removed
        }
        try {
            decodeFrames(in, out);
        } catch (ProtocolException e) {
            // The byte stream cannot be re-synchronised after a bad frame. Drop what is buffered and
            // all that follows, or decodeLast would raise the same error again when the connection
            // closes and the reason would be logged twice.
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    private void decodeFrames(ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= Frame.HEADER_LENGTH) {
            int start = in.readerIndex();
            byte type = in.getByte(start);
            byte flags = in.getByte(start + 1);
            int streamId = in.getInt(start + 2);
            long length = in.getUnsignedInt(start + 6);
            checkHeader(type, streamId, length);
            if (in.readableBytes() < Frame.HEADER_LENGTH + length) {
                return;
            }
            in.skipBytes(Frame.HEADER_LENGTH);
            Frame frame = decodePayload(type, flags, streamId, (int) length, in);
            out.add(frame);
            if (frame instanceof ControlFrame c && c.message() instanceof ControlMessage.StartWorkConn) {
                rawFollows = true;
                return;
            }
        }
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
            case Frame.TYPE_OPEN -> max = MAX_OPEN_PAYLOAD;
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

    private static Frame decodePayload(byte type, byte flags, int streamId, int length, ByteBuf in) {
        return switch (type) {
            case Frame.TYPE_DATA -> new DataFrame(streamId, in.readRetainedSlice(length), (flags & Frame.FLAG_FIN) != 0);
            case Frame.TYPE_WINDOW_UPDATE -> {
                int increment = in.readInt();
                if (increment <= 0) {
                    throw new ProtocolException("window update of " + Integer.toUnsignedString(increment)
                            + " on stream " + streamId + " (expected 1.." + Integer.MAX_VALUE + ")");
                }
                yield new WindowUpdateFrame(streamId, increment);
            }
            case Frame.TYPE_RESET -> new ResetFrame(streamId, in.readInt());
            case Frame.TYPE_OPEN -> decodeOpen(streamId, in.readSlice(length));
            default -> new ControlFrame(ControlCodec.decode(in.readSlice(length)));
        };
    }

    private static OpenFrame decodeOpen(int streamId, ByteBuf payload) {
        if (payload.readableBytes() < 4) {
            throw new ProtocolException("open frame truncated");
        }
        int proxyId = payload.readInt();
        String source = ControlCodec.readString(payload);
        if (payload.isReadable()) {
            throw new ProtocolException("open frame has " + payload.readableBytes() + " trailing bytes");
        }
        return new OpenFrame(streamId, proxyId, source);
    }
}
