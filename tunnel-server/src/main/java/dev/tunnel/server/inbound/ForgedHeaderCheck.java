package dev.tunnel.server.inbound;

import dev.tunnel.runtime.BurstLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On a port that takes the PROXY protocol, for a connection from an address that is not a
 * trusted balancer: refuses it when its first bytes are a PROXY v1 or v2 signature (a visitor
 * claiming to be someone else). The rest of the pipeline sees {@code channelActive} only once the
 * first bytes show they are no header, so a refused connection never reached a proxy: no stream
 * was opened and nothing went to the client. It holds first bytes only while they could still
 * become a signature (at most 11), so the local app never receives a forged header.
 *
 * <p>A visitor that sends nothing for {@value #FIRST_BYTES_WAIT_MS} ms (a protocol where the
 * server speaks first) is let through then, with a {@code channelReadComplete} that read
 * nothing (so a handler collecting the first read's bytes hands the connection on); the check
 * stays and still refuses a header sent after that, before its bytes go on.
 *
 * <p>Threading: the channel's event loop.
 */
final class ForgedHeaderCheck extends ChannelInboundHandlerAdapter {
    static final String NAME = "forgedHeaderCheck";
    /** How long a silent visitor waits before the rest of the pipeline sees it. */
    static final long FIRST_BYTES_WAIT_MS = 300;
    private static final byte[] V1 = "PROXY ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] V2 = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
    private static final Logger log = LoggerFactory.getLogger(ForgedHeaderCheck.class);
    private static final BurstLog REFUSED = new BurstLog(log);

    private ByteBuf held;
    /** The rest of the pipeline has seen {@code channelActive}. */
    private boolean announced;
    private ScheduledFuture<?> wait;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (announced) { // fired again by whoever carries the connection on (MuxLink)
            ctx.fireChannelActive();
            return;
        }
        wait = ctx.executor().schedule(() -> {
            if (ctx.channel().isActive() && !announced) {
                announce(ctx);
                ctx.fireChannelReadComplete();
            }
        }, FIRST_BYTES_WAIT_MS, TimeUnit.MILLISECONDS);
        ctx.read();
    }

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
        announce(ctx);
        ctx.pipeline().remove(this);
        ctx.fireChannelRead(first);
    }

    /** Before the first bytes decided, a read that ended is nobody else's business. */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (announced) {
            ctx.fireChannelReadComplete();
        }
    }

    /** Lets the rest of the pipeline see the connection (once). */
    private void announce(ChannelHandlerContext ctx) {
        if (!announced) {
            announced = true;
            if (wait != null) {
                wait.cancel(false);
            }
            ctx.fireChannelActive();
        }
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

    /**
     * The input ended (half-closure) before the first bytes decided: the visitor sent no header,
     * so the connection goes on, with the bytes held (a signature's start, but no header) first.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        announce(ctx);
        if (held != null) {
            ByteBuf bytes = held;
            held = null;
            ctx.fireChannelRead(bytes).fireChannelReadComplete();
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** A connection closed before its first bytes decided was never seen behind this check: it sees no close either. */
    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (wait != null) {
            wait.cancel(false);
        }
        if (announced) {
            ctx.fireChannelInactive();
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
