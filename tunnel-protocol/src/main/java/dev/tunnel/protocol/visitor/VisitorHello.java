package dev.tunnel.protocol.visitor;

import dev.tunnel.protocol.ProtocolException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * The first bytes of a stream a visitor opens: which secret proxy it wants and its
 * {@link dev.tunnel.protocol.auth.VisitorProof}. The visitor sends its connection's bytes right
 * behind it, without waiting (one round trip per connection, as for public connections).
 *
 * <pre>
 *   u16 length of the rest | u8 version (1) | str type | str serverUser | str serverName | str nonce | str proof
 * </pre>
 * Strings are u16-length-prefixed UTF-8. At most {@value #MAX_BYTES} bytes in all.
 *
 * @param type       {@code stcp} or {@code sudp}
 * @param serverUser the provider's user ("" for the visitor's own)
 * @param serverName the provider's proxy name
 * @param nonce      the visitor's fresh nonce
 * @param proof      the proof over the secret key
 */
public record VisitorHello(String type, String serverUser, String serverName, String nonce, String proof) {
    /** Largest encoded hello, length prefix included. */
    public static final int MAX_BYTES = 1024;
    static final int VERSION = 1;

    public ByteBuf encode(ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(128);
        out.writeShort(0);
        out.writeByte(VERSION);
        for (String s : new String[] {type, serverUser, serverName, nonce, proof}) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            out.writeShort(bytes.length).writeBytes(bytes);
        }
        if (out.readableBytes() > MAX_BYTES) {
            out.release();
            throw new IllegalArgumentException("visitor hello of more than " + MAX_BYTES + " bytes");
        }
        out.setShort(0, out.readableBytes() - 2);
        return out;
    }

    /** Bytes the hello at the start of {@code in} takes, or -1 if its length prefix has not all arrived. */
    static int encodedLength(ByteBuf in) {
        if (in.readableBytes() < 2) {
            return -1;
        }
        int length = in.getUnsignedShort(in.readerIndex()) + 2;
        if (length > MAX_BYTES) {
            throw new ProtocolException("visitor hello of " + length + " bytes exceeds maximum " + MAX_BYTES);
        }
        return length;
    }

    /** Decodes a whole hello ({@link #encodedLength} bytes); throws ProtocolException when malformed. */
    static VisitorHello decode(ByteBuf in) {
        int end = in.readerIndex() + encodedLength(in);
        in.skipBytes(2);
        if (in.readerIndex() >= end || in.readUnsignedByte() != VERSION) {
            throw new ProtocolException("visitor hello of an unknown version");
        }
        String[] fields = new String[5];
        for (int i = 0; i < fields.length; i++) {
            if (end - in.readerIndex() < 2) {
                throw new ProtocolException("visitor hello truncated");
            }
            int n = in.readUnsignedShort();
            if (end - in.readerIndex() < n) {
                throw new ProtocolException("visitor hello truncated");
            }
            fields[i] = in.readCharSequence(n, StandardCharsets.UTF_8).toString();
        }
        if (in.readerIndex() != end) {
            throw new ProtocolException("visitor hello has " + (end - in.readerIndex()) + " bytes too many");
        }
        return new VisitorHello(fields[0], fields[1], fields[2], fields[3], fields[4]);
    }
}
