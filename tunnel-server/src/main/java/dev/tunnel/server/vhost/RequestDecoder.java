package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;

/**
 * Netty's {@link HttpRequestDecoder}, which also hands on the bytes a request head arrived in
 * ({@link HeadBytes}, just before the {@link HttpRequest} it belongs to), so that a head the
 * vhost only adds headers to can go to the app as those bytes plus the added lines
 * ({@link RequestSplice}) rather than re-encoded. Only a head that one {@code decode} call read
 * whole gets them (the common case: a head arrives in one read); one split over reads, or one
 * the decoder failed, does not, and is re-encoded.
 *
 * <p>Threading: the connection's event loop, as any decoder.
 */
final class RequestDecoder extends HttpRequestDecoder {
    /** The raw bytes of the next request head, from its request line to its empty line; reference-counted. */
    static final class HeadBytes extends DefaultByteBufHolder {
        HeadBytes(ByteBuf bytes) {
            super(bytes);
        }
    }

    /** At the start of a message: the decoder has consumed nothing of the next head. */
    private boolean atHead = true;
    /** Some of the current head was consumed by an earlier call: its bytes are gone. */
    private boolean split;

    RequestDecoder(HttpDecoderConfig config) {
        super(config);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
        int from = buffer.readerIndex();
        int first = out.size();
        super.decode(ctx, buffer, out);
        if (!atHead) {
            atHead = out.size() > first && out.get(out.size() - 1) instanceof LastHttpContent;
            return;
        }
        if (out.size() == first) {
            split |= buffer.readerIndex() > from;
            return;
        }
        if (!split && out.get(first) instanceof HttpRequest head && head.decoderResult().isSuccess()) {
            int start = from;
            while (start < buffer.readerIndex() && isControlOrSpace(buffer.getByte(start))) {
                start++; // what the decoder skips before a request line
            }
            out.add(first, new HeadBytes(buffer.retainedSlice(start, buffer.readerIndex() - start)));
        }
        split = false;
        atHead = out.get(out.size() - 1) instanceof LastHttpContent;
    }

    /** The bytes the decoder skips before a request line (ASCII controls and whitespace). */
    private static boolean isControlOrSpace(byte b) {
        return b >= 0 && (b <= ' ' || b == 0x7f);
    }
}
