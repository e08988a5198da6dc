package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpObject;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes what an app's connection delivered for a vhost connection's current exchange on to the
 * visitor: the response's bytes as they arrived (copied first for a visitor that reads slowly,
 * {@link SlowReaderCopies}), its head and end recorded in the {@link Exchange}.
 *
 * <p>Invariant: every batch is consumed, and its credit ({@code rawBytes}) goes back to the app's
 * connection exactly once: when the visitor's socket took the last of its bytes, or at once when
 * none is written (dropped, or parts without bytes).
 *
 * <p>Threading: the connection's event loop, which is the app connection's.
 */
final class ResponseRelay {
    private static final Logger log = LoggerFactory.getLogger(HttpVhostHandler.class);

    private final ChannelHandlerContext ctx;
    private final Exchange exchange;
    private final Runnable finalHead;

    /** @param finalHead runs when a final response head (101, or 2xx-5xx) passes */
    ResponseRelay(ChannelHandlerContext ctx, Exchange exchange, Runnable finalHead) {
        this.ctx = ctx;
        this.exchange = exchange;
        this.finalHead = finalHead;
    }

    /**
     * Writes {@code parts} (ownership passes) to the visitor up to the first one the reader
     * failed; the rest is released.
     *
     * @return why the response cannot go on (it could not be parsed), or null
     */
    String pass(Upstream from, List<Object> parts, int rawBytes) {
        ChannelFuture lastWrite = null;
        String failure = null;
        for (Object part : parts) {
            if (failure != null) {
                ReferenceCountUtil.release(part);
            } else if (part instanceof ByteBuf bytes) {
                lastWrite = ctx.write(SlowReaderCopies.forWrite(ctx.channel(), bytes));
            } else if (part instanceof HttpObject h && h.decoderResult().isFailure()) {
                log.debug("{} bad response from {}: {}", ctx.channel(), from, h.decoderResult().cause().toString());
                failure = "its response could not be parsed";
            } else if (part instanceof ResponseHead head) {
                if (exchange.responseHead(head)) {
                    finalHead.run();
                }
            } else if (part == ResponseReader.END) {
                exchange.responseEnded();
            }
        }
        if (lastWrite != null) {
            from.conn.flushLater(ctx.channel());
            lastWrite.addListener(f -> from.consumed(rawBytes));
        } else {
            from.consumed(rawBytes);
        }
        return failure;
    }

    /** Drops {@code parts}, which no exchange of this connection asked for, and returns their credit. */
    static void drop(Upstream from, List<Object> parts, int rawBytes) {
        parts.forEach(ReferenceCountUtil::release);
        from.consumed(rawBytes);
    }
}
