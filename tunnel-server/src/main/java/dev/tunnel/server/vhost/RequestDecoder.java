package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObject;
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
 * <p>A plain head ({@link PlainRequestHead}: origin-form, HTTP/1.1, one Host, no body) at the
 * start of a read is not decoded at all: it becomes a {@link PlainRequest}, which is the whole
 * request (no part follows it, not even the empty last one the decoder would have emitted), and
 * the decoder never sees its bytes. A head the
 * decoder has begun (one that arrived incomplete, or was not plain) is the decoder's to the end of
 * its message; once the decoder has failed a head, no scan is tried again.
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
    /**
     * The decoder's last call ended a message, so it is where it starts: a call that did not may
     * have moved it on without consuming a byte (into reading a request line), and the rest of
     * that head must go to it.
     */
    private boolean decoderAtRest = true;
    /** The scan for plain heads; null when every head goes to the decoder. */
    private PlainRequestHead plain;

    /** @param scanPlainHeads false: every head goes to Netty's decoder (for tests that compare the two) */
    RequestDecoder(boolean scanPlainHeads) {
        super(limits());
        plain = scanPlainHeads ? new PlainRequestHead() : null;
    }

    /**
     * What a visitor may send: a request line of {@link VhostSettings#MAX_REQUEST_LINE} bytes
     * (longer: 414) and headers of {@link VhostSettings#MAX_REQUEST_HEADERS} (longer: 431); body
     * parts are handed on in pieces of 256 KiB at most. A config of its own for each decoder
     * (the config is mutable).
     */
    private static HttpDecoderConfig limits() {
        return new HttpDecoderConfig()
                .setMaxInitialLineLength(VhostSettings.MAX_REQUEST_LINE)
                .setMaxHeaderSize(VhostSettings.MAX_REQUEST_HEADERS)
                .setMaxChunkSize(256 * 1024);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf buffer, List<Object> out) throws Exception {
        int from = buffer.readerIndex();
        if (atHead && decoderAtRest && plain != null && plain.scan(buffer, from)) {
            out.add(plain.request(ctx.alloc()));
            buffer.skipBytes(plain.length);
            return;
        }
        int first = out.size();
        super.decode(ctx, buffer, out);
        decoderAtRest = out.size() > first && out.get(out.size() - 1) instanceof LastHttpContent;
        for (int i = first; i < out.size(); i++) {
            if (out.get(i) instanceof HttpObject o && o.decoderResult().isFailure()) {
                plain = null; // the decoder now discards what follows: no head may start in it
            }
        }
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

    /**
     * At the visitor's FIN, a request whose body has not ended (fewer bytes than its
     * {@code Content-Length}, or a chunked body without its last chunk) gets a failed last part:
     * Netty's decoder drops such a request silently, and the vhost would wait for the rest.
     */
    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        boolean ended = !out.isEmpty() && out.get(out.size() - 1) instanceof LastHttpContent;
        if (!atHead && !ended) {
            atHead = true;
            LastHttpContent cut = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER);
            cut.setDecoderResult(DecoderResult.failure(
                    new PrematureChannelClosureException("the visitor closed its side before the end of the request body")));
            out.add(cut);
        }
    }

    /** The bytes the decoder skips before a request line (ASCII controls and whitespace). */
    private static boolean isControlOrSpace(byte b) {
        return b >= 0 && (b <= ' ' || b == 0x7f);
    }
}
