package dev.tunnel.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import java.util.function.Predicate;

/**
 * Decodes the control frames a connection starts with, up to and including the one
 * {@code last} accepts, and nothing after it: the server's view of a new connection until its
 * {@code LOGIN} or {@code NEW_WORK_CONN}, and the client's view of a pooled work connection until
 * {@code START_WORK_CONN}. Any other frame type before that is a protocol error.
 *
 * <h3>Handing over</h3>
 * The bytes behind the last message are left as they are and reach the next handler once this
 * decoder is removed, in order, after the handler that got the last message has returned: the
 * frames a client sends behind its login go to the session's {@link FrameDecoder}, the public
 * connection's bytes behind {@code START_WORK_CONN} to the pipe. So the session's frame decoder
 * knows nothing of handshakes or work connections.
 *
 * <h3>Errors</h3>
 * The first {@link ProtocolException} is raised once (as a {@link DecoderException}); every later
 * byte is dropped.
 *
 * <p>Control frames here are small and few, so a partial one is simply kept (copied) until the
 * rest arrives. Threading: one instance per connection, used on its event loop.
 */
public final class ControlFrameDecoder extends ChannelInboundHandlerAdapter {
    private static final int MAX_PIECES = 64;

    private final Predicate<ControlMessage> last;
    private final int maxPayload;
    /** A partial frame, before the last message. */
    private ByteBuf partial;
    /** Raw bytes behind the last message, until removal. */
    private CompositeByteBuf raw;
    private boolean stopped;
    private boolean failed;

    /** @param last the message after which this decoder decodes nothing more */
    public ControlFrameDecoder(Predicate<ControlMessage> last) {
        this(last, FrameDecoder.DEFAULT_MAX_CONTROL_PAYLOAD);
    }

    public ControlFrameDecoder(Predicate<ControlMessage> last, int maxPayload) {
        this.last = last;
        this.maxPayload = maxPayload;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (stopped) {
            hold(ctx, in);
            return;
        }
        if (failed) {
            in.release();
            return;
        }
        ByteBuf buf = in;
        if (partial != null) {
            buf = partial.writeBytes(in);
            partial = null;
            in.release();
        }
        try {
            while (!stopped && buf.isReadable()) {
                ControlFrame frame = decodeOne(buf);
                if (frame == null) {
                    break;
                }
                ctx.fireChannelRead(frame);
            }
        } catch (ProtocolException e) {
            failed = true;
            buf.release();
            throw new DecoderException(e);
        }
        if (!buf.isReadable()) {
            buf.release();
        } else if (stopped) {
            hold(ctx, buf);
        } else {
            partial = ctx.alloc().buffer(buf.readableBytes()).writeBytes(buf);
            buf.release();
        }
    }

    /** Keeps raw bytes for the handler after this one; takes ownership of {@code in}. */
    private void hold(ChannelHandlerContext ctx, ByteBuf in) {
        if (ctx.isRemoved()) {
            ctx.fireChannelRead(in);
            return;
        }
        if (raw == null) {
            raw = ctx.alloc().compositeBuffer(MAX_PIECES);
        }
        raw.addComponent(true, in);
    }

    /** The next whole frame of {@code in}, or null when it needs more bytes. */
    private ControlFrame decodeOne(ByteBuf in) {
        if (in.readableBytes() < Frame.HEADER_LENGTH) {
            return null;
        }
        int start = in.readerIndex();
        byte type = in.getByte(start);
        int streamId = in.getInt(start + 2);
        long length = in.getUnsignedInt(start + 6);
        if (type != Frame.TYPE_CONTROL) {
            throw new ProtocolException("frame type 0x" + Integer.toHexString(type & 0xff)
                    + " before the handshake finished (expected control frames)");
        }
        if (streamId != 0) {
            throw new ProtocolException("control frame on stream " + streamId + " (expected 0)");
        }
        if (length > maxPayload) {
            throw new ProtocolException("frame length " + length + " exceeds maximum " + maxPayload);
        }
        if (in.readableBytes() < Frame.HEADER_LENGTH + length) {
            return null;
        }
        in.skipBytes(Frame.HEADER_LENGTH);
        ControlMessage message = ControlCodec.decode(in.readSlice((int) length));
        stopped = last.test(message);
        return new ControlFrame(message);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (partial != null) {
            partial.release();
            partial = null;
        }
        if (raw != null) {
            ByteBuf rest = raw;
            raw = null;
            ctx.fireChannelRead(rest);
        }
    }

    private void release() {
        ReferenceCountUtil.safeRelease(partial);
        ReferenceCountUtil.safeRelease(raw);
        partial = null;
        raw = null;
    }
}
