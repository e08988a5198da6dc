package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayList;
import java.util.List;

/**
 * Netty's {@link HttpResponseEncoder}, called directly to turn one response head into bytes:
 * a head the vhost changed ({@code responseHeaders.set}), or the head of a page it answers
 * itself. Headers are written as they are (no framing header added or removed: the body that
 * follows is the one the head describes), and the encoder is left ready for the next head.
 *
 * <p>Threading: one thread at a time (the public connection's loop).
 */
final class ResponseHeadEncoder extends HttpResponseEncoder {
    private final List<Object> out = new ArrayList<>(2);

    /** The bytes of {@code head}'s status line and headers, ending with the empty line. */
    ByteBuf encode(ChannelHandlerContext ctx, HttpResponse head) {
        try {
            encode(ctx, head instanceof FullHttpResponse full ? headOf(full) : head, out);
            encode(ctx, LastHttpContent.EMPTY_LAST_CONTENT, out); // back to the initial state
            ByteBuf bytes = (ByteBuf) out.get(0);
            for (int i = 1; i < out.size(); i++) {
                ((ByteBuf) out.get(i)).release(); // empty
            }
            return bytes;
        } catch (Exception e) {
            throw new IllegalStateException("could not encode a response head", e);
        } finally {
            out.clear();
        }
    }

    /** A whole page: its head, then its content (ownership of {@code page} passes). */
    ByteBuf encodePage(ChannelHandlerContext ctx, FullHttpResponse page) {
        ByteBuf head = encode(ctx, page);
        return ctx.alloc().compositeBuffer(2).addComponents(true, head, page.content());
    }

    private static HttpResponse headOf(FullHttpResponse full) {
        return new io.netty.handler.codec.http.DefaultHttpResponse(full.protocolVersion(), full.status(),
                full.headers());
    }

    @Override
    protected boolean isContentAlwaysEmpty(HttpResponse msg) {
        return true; // only the head is encoded here
    }

    @Override
    protected void sanitizeHeadersBeforeEncode(HttpResponse msg, boolean isAlwaysEmpty) {
        // the head goes out as it was built or received
    }
}
