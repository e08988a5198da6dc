package dev.tunnel.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Reads the peer's {@link Preface}, fires a {@link PrefaceEvent} and removes itself; the bytes
 * that follow the preface are passed on to the frame decoder unchanged.
 *
 * <p>A wrong magic raises a {@link ProtocolException} that says what the peer sent, since the
 * usual cause is a misconfiguration (wrong port, TLS on one side only, an HTTP client).
 */
public final class PrefaceDecoder extends ByteToMessageDecoder {

    /** The peer's preface was valid; {@code version} is the protocol version it speaks. */
    public record PrefaceEvent(int version) {
    }

    private boolean failed;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        try {
            decodePreface(ctx, in);
        } catch (ProtocolException e) {
            // Drop the peer's bytes, or decodeLast would raise the same error again at close.
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    private void decodePreface(ChannelHandlerContext ctx, ByteBuf in) {
        if (in.readableBytes() < 4) {
            checkPartialMagic(in);
            return;
        }
        int magic = in.getInt(in.readerIndex());
        if (magic != Preface.MAGIC) {
            throw new ProtocolException(describeUnexpected(in));
        }
        if (in.readableBytes() < Preface.LENGTH) {
            return;
        }
        in.skipBytes(4);
        int version = in.readUnsignedShort();
        ctx.pipeline().remove(this);
        ctx.fireUserEventTriggered(new PrefaceEvent(version));
    }

    private static void checkPartialMagic(ByteBuf in) {
        for (int i = 0; i < in.readableBytes(); i++) {
            byte expected = (byte) (Preface.MAGIC >>> (24 - 8 * i));
            if (in.getByte(in.readerIndex() + i) != expected) {
                throw new ProtocolException(describeUnexpected(in));
            }
        }
    }

    static String describeUnexpected(ByteBuf in) {
        int n = Math.min(in.readableBytes(), 16);
        byte first = in.getByte(in.readerIndex());
        String hint;
        if (first == 0x16) {
            hint = "a TLS handshake: TLS is enabled on the peer but not here";
        } else if (first == 'S' && n >= 4 && in.getByte(in.readerIndex() + 1) == 'S') {
            hint = "an SSH banner: the port belongs to an SSH server";
        } else if (Character.isLetter(first)) {
            hint = "text, perhaps HTTP: the peer is not a tunnel endpoint";
        } else {
            hint = "not the tunnel protocol: check the address, the port and that TLS is on or off on both sides";
        }
        return "peer did not send the tunnel preface (got 0x"
                + ByteBufUtil.hexDump(in, in.readerIndex(), n) + ": " + hint + ")";
    }
}
