package dev.tunnel.server.inbound;

import dev.tunnel.runtime.BurstLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On a port that takes the PROXY protocol, for a connection from an address that is not a
 * trusted balancer: refuses it when its first bytes are a PROXY v1 or v2 signature (a visitor
 * claiming to be someone else), and otherwise leaves the pipeline at once. It holds first bytes
 * only while they could still become a signature (at most 11), so the local app never receives a
 * forged header, and a protocol where the server speaks first is not held up.
 *
 * <p>Threading: the channel's event loop.
 */
final class ForgedHeaderCheck extends ChannelInboundHandlerAdapter {
    static final String NAME = "forgedHeaderCheck";
    private static final byte[] V1 = "PROXY ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] V2 = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    private static final Logger log = LoggerFactory.getLogger(ForgedHeaderCheck.class);
    private static final BurstLog REFUSED = new BurstLog(log);

    private ByteBuf held;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf first = held == null ? buf : Unpooled.wrappedBuffer(held, buf);
        held = null;
        if (startsWith(first, V1, true) || startsWith(first, V2, true)) {
            first.release();
            REFUSED.warn("{} refused: {} sent a PROXY header and is not in proxyProtocolTrustedIPs", ctx.channel(),
                    ctx.channel().remoteAddress());
            ctx.close();
            return;
        }
        if (startsWith(first, V1, false) || startsWith(first, V2, false)) {
            held = first;
            ctx.read();
            return;
        }
        ctx.pipeline().remove(this);
        ctx.fireChannelRead(first);
    }

    /** Whether {@code buf} starts with all of {@code signature} ({@code whole}), or is a strict prefix of it. */
    private static boolean startsWith(ByteBuf buf, byte[] signature, boolean whole) {
        int n = buf.readableBytes();
        if (whole ? n < signature.length : n >= signature.length) {
            return false;
        }
        int from = buf.readerIndex();
        for (int i = 0; i < Math.min(n, signature.length); i++) {
            if (buf.getByte(from + i) != signature[i]) {
                return false;
            }
        }
        return true;
    }

    /** The input ended (or the connection closed) while bytes were held: they were no header, so they go on first. */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        release(ctx);
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        release(ctx);
        ctx.fireChannelInactive();
    }

    private void release(ChannelHandlerContext ctx) {
        if (held != null) {
            ByteBuf bytes = held;
            held = null;
            ctx.fireChannelRead(bytes).fireChannelReadComplete();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (held != null) {
            held.release();
            held = null;
        }
    }
}
