package dev.tunnel.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The first bytes each side sends after TLS (or after TCP when TLS is off): a 4-byte magic
 * {@code "TUNL"} and a 2-byte protocol version, big-endian.
 *
 * <p>The magic's first byte is not {@code 0x16}, so a server that accepts both TLS and
 * plaintext can tell them apart from the first byte, and a peer that speaks something else
 * (HTTP, SSH, frp) fails with a clear message instead of a confusing frame error.
 */
public final class Preface {
    /** {@code "TUNL"}. */
    public static final int MAGIC = 0x54554E4C;
    /** Wire protocol version this build speaks. */
    public static final int VERSION = 2;
    /** Length of the preface on the wire. */
    public static final int LENGTH = 6;

    private Preface() {
    }

    /** Encodes this build's preface. */
    public static ByteBuf encode(ByteBufAllocator alloc) {
        ByteBuf buf = alloc.buffer(LENGTH);
        buf.writeInt(MAGIC);
        buf.writeShort(VERSION);
        return buf;
    }
}
