package dev.tunnel.server.vhost;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Frames the responses a local app sends on one stream and passes them on as the bytes they
 * arrived in. Netty's {@link HttpResponseDecoder} is the parser: it is called directly, one step
 * at a time, and the bytes each step consumed are attributed to what it produced. The decoded
 * objects only tell where a response starts and ends; what goes to the visitor is the stream's
 * own buffers (one that holds exactly one response passes whole) or slices of them, so a head is
 * neither re-encoded nor a body copied or re-chunked.
 *
 * <p>A plain head ({@link PlainResponseHead}: HTTP/1.1, one {@code Content-Length}, strict lines)
 * is framed by a scan of its bytes, and its body counted off, without the decoder; any other goes
 * to the decoder, which is then left to finish that response.
 *
 * <p>A head is re-encoded (from what the decoder made of it) only when the proxy sets
 * {@code responseHeaders.set}. Framing the decoder finds ambiguous (both
 * {@code Transfer-Encoding} and {@code Content-Length}, differing lengths, bare LF line ends)
 * fails the response rather than passing bytes the visitor's side could frame another way.
 * After a {@code 101 Switching Protocols} head every byte is raw and passes unparsed.
 *
 * <h3>Output</h3>
 * {@link #read} appends, in order: each response head (a {@link ResponseHead}, for the
 * caller's bookkeeping, not to be written), {@link #END} where a
 * response ends, a failed {@link HttpObject} (its {@code decoderResult()}) when the app's bytes
 * are not HTTP, and {@link ByteBuf}s to write to the visitor (ownership passes). Bytes of a head
 * that is still incomplete are held back (at most {@link Upstream#MAX_RESPONSE_HEAD} and a line).
 *
 * <h3>Why the decoder is not in a pipeline</h3>
 * A stream is not a channel: the alternative is an {@code EmbeddedChannel} per stream, whose
 * promises, pipeline and task queue cost more than the parsing. The decoder's {@code decode} and
 * {@code decodeLast} use their context argument only to pass it on; the public channel's is given.
 *
 * <p>Threading: the stream's session loop. Not thread-safe.
 */
final class ResponseReader {
    /** Marks the end of a response in {@link #read}'s output; not reference-counted. */
    static final Object END = LastHttpContent.EMPTY_LAST_CONTENT;

    private final Decoder decoder = new Decoder();
    /** Scans plain heads; null when every head goes to the decoder (heads are rewritten, or a test compares). */
    private final PlainResponseHead plain;
    private ChannelHandlerContext ctx;
    private final Map<String, String> setHeaders;
    private final ResponseHeadEncoder headEncoder;
    private final List<Object> step = new ArrayList<>(2);
    /** Bytes of the previous read not yet passed on: a partial head, or a partial line. */
    private ByteBuf carry;
    /** How many of {@link #carry}'s bytes the decoder already consumed. */
    private int carryConsumed;
    private boolean awaitingHead = true;
    /** The decoder is in its first state: it has seen nothing of the response under way. */
    private boolean decoderIdle = true;
    /** Body bytes of a plain head's response still to come. */
    private long plainBody;
    private boolean raw;
    private boolean failed;
    /** The last plain head's summary, given again while heads say the same. */
    private ResponseHead lastPlain;
    /** Where the buffer {@link #read} was given starts, when it holds no carried bytes; else -1. */
    private int rawStart;
    /** {@link #read}'s buffer itself went into its output (with read()'s reference), its reader index to be put back. */
    private boolean passedWhole;

    /**
     * @param ctx        the public connection's context, for buffers and the decoder's calls
     * @param setHeaders {@code responseHeaders.set} of the proxy (empty: heads pass unchanged)
     */
    ResponseReader(ChannelHandlerContext ctx, Map<String, String> setHeaders) {
        this(ctx, setHeaders, true);
    }

    /** @param scanPlainHeads false: every head goes to the decoder (for tests that compare the two) */
    ResponseReader(ChannelHandlerContext ctx, Map<String, String> setHeaders, boolean scanPlainHeads) {
        this.ctx = ctx;
        this.setHeaders = setHeaders;
        this.headEncoder = setHeaders.isEmpty() ? null : new ResponseHeadEncoder();
        this.plain = scanPlainHeads && setHeaders.isEmpty() ? new PlainResponseHead() : null;
    }

    /** The public connection whose context buffers and decoder calls use from now on (a reused stream's next user). */
    void context(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** Between responses, with nothing held back: the connection may carry another request. */
    boolean atRest() {
        return awaitingHead && carry == null && !failed && !raw;
    }

    /** The next response answers a HEAD request: it has a head and no body, whatever its headers say. */
    void expectHeadResponse(boolean head) {
        decoder.headRequest = head;
    }

    /** Reads {@code data} (ownership passes) and appends what it brings to {@code out}; see the class comment. */
    void read(ByteBuf data, List<Object> out) {
        if (failed) {
            data.release();
            return;
        }
        if (raw) {
            out.add(data);
            return;
        }
        ByteBuf in = data;
        int rawFrom = 0;
        passedWhole = false;
        if (carry != null) { // flat: a carry never holds a slice of an earlier composite
            CompositeByteBuf joined = ctx.alloc().compositeBuffer();
            joined.addFlattenedComponents(true, carry);
            joined.addFlattenedComponents(true, data);
            in = joined;
            in.readerIndex(carryConsumed);
            carry = null;
        } else {
            rawFrom = in.readerIndex();
        }
        rawStart = in == data ? rawFrom : -1;
        try {
            while (in.isReadable() && !failed && !raw) {
                if (plainBody > 0) {
                    int n = (int) Math.min(plainBody, in.readableBytes());
                    in.skipBytes(n);
                    plainBody -= n;
                    if (plainBody == 0) {
                        rawFrom = ended(in, rawFrom, out);
                    }
                    continue;
                }
                if (awaitingHead && decoderIdle && plain != null
                        && plain.scan(in, in.readerIndex(), decoder.headRequest)) {
                    awaitingHead = false;
                    out.add(plainHead());
                    in.skipBytes(plain.length);
                    plainBody = plain.bodyLength;
                    if (plainBody == 0) {
                        rawFrom = ended(in, rawFrom, out);
                    }
                    continue;
                }
                int before = in.readerIndex();
                decoderIdle = false;
                decoder.step(ctx, in, step);
                if (step.isEmpty()) {
                    if (in.readerIndex() == before) {
                        break; // the rest is a partial line
                    }
                    continue;
                }
                rawFrom = produced(in, rawFrom, out);
            }
            if (failed) {
                return;
            }
            if (raw) {
                in.readerIndex(in.writerIndex());
            }
            int end = awaitingHead && !raw ? rawFrom : in.readerIndex();
            if (end > rawFrom) {
                out.add(in.retainedSlice(rawFrom, end - rawFrom));
            }
            if (in.writerIndex() > end) {
                carry = tail(in, end);
                carryConsumed = in.readerIndex() - end;
            }
        } finally {
            if (passedWhole) {
                in.readerIndex(rawStart); // it went into out whole, with the reference read() was given
            } else {
                in.release();
            }
        }
    }

    /** The head the scan read, as the last plain one when it says the same (records are immutable, so it is shared). */
    private ResponseHead plainHead() {
        ResponseHead last = lastPlain;
        if (last == null || last.code() != plain.code || last.keepAlive() == plain.close
                || last.framed() != plain.hasLength) {
            last = lastPlain = new ResponseHead(plain.code, !plain.close, plain.hasLength);
        }
        return last;
    }

    /** The bytes of {@code in} from {@code from} on, retained, as leaf buffers (no slice of a composite). */
    private static ByteBuf tail(ByteBuf in, int from) {
        int length = in.writerIndex() - from;
        if (in instanceof CompositeByteBuf composite) {
            CompositeByteBuf tail = composite.alloc().compositeBuffer();
            for (ByteBuf part : composite.decompose(from, length)) {
                tail.addComponent(true, part.retain());
            }
            return tail;
        }
        return in.retainedSlice(from, length);
    }

    /** The stream ended: a response delimited by the close ends here; a partial one is dropped. */
    void finish(List<Object> out) {
        if (failed || raw || plainBody > 0) { // a plain head's body cut short ends nothing
            release();
            return;
        }
        ByteBuf in = carry != null ? carry : ctx.alloc().buffer(0);
        carry = null;
        if (in.readableBytes() > 0) {
            in.readerIndex(in.readerIndex() + carryConsumed);
        }
        try {
            decoder.last(ctx, in, step);
            for (Object o : step) {
                if (o instanceof HttpObject h && h.decoderResult().isFailure()) {
                    failed = true;
                } else if (o instanceof LastHttpContent) {
                    awaitingHead = true;
                    out.add(END);
                }
                ReferenceCountUtil.release(o);
            }
            step.clear();
        } finally {
            in.release();
            decoder.close();
        }
    }

    /** Releases what is held; the reader reads nothing more. */
    void release() {
        failed = true;
        if (carry != null) {
            carry.release();
            carry = null;
        }
        decoder.close();
    }

    /** Handles what one decoder step produced; returns where the bytes not yet passed on start now. */
    private int produced(ByteBuf in, int rawFrom, List<Object> out) {
        int from = rawFrom;
        for (Object o : step) {
            if (o instanceof HttpObject h && h.decoderResult().isFailure()) {
                failed = true;
                out.add(o); // a head or an empty last part: nothing to release
                continue;
            }
            if (failed) {
                ReferenceCountUtil.release(o);
            } else if (o instanceof HttpResponse head) {
                awaitingHead = false;
                out.add(ResponseHead.of(head));
                if (needsRewrite(head)) {
                    from = in.readerIndex(); // the head's own bytes are replaced by the rewritten head
                    out.add(rewritten(head));
                }
                if (head.status().code() == 101) {
                    raw = true;
                }
            } else if (o instanceof LastHttpContent last) {
                last.release();
                decoderIdle = true;
                from = ended(in, from, out);
            } else {
                ReferenceCountUtil.release(o); // a body part: its bytes pass as they came
            }
        }
        step.clear();
        if (failed) {
            decoder.close();
        }
        return from;
    }

    /** A response ends at {@code in}'s reader index: its bytes from {@code from} on pass, then {@link #END}; returns the new start. */
    private int ended(ByteBuf in, int from, List<Object> out) {
        awaitingHead = true;
        if (in.readerIndex() > from) {
            if (from == rawStart && in.readerIndex() == in.writerIndex()) {
                passedWhole = true; // the read is exactly this response's bytes: passed on as it is, not sliced
                out.add(in);
            } else {
                out.add(in.retainedSlice(from, in.readerIndex() - from));
            }
        }
        out.add(END);
        return in.readerIndex();
    }

    private boolean needsRewrite(HttpResponse head) {
        return headEncoder != null && head.status().code() >= 200;
    }

    private ByteBuf rewritten(HttpResponse head) {
        setHeaders.forEach((k, v) -> head.headers().set(k, v));
        return headEncoder.encode(ctx, head);
    }

    /** Netty's response decoder, stepped by hand; knows HEAD requests as {@code HttpClientCodec} would. */
    private static final class Decoder extends HttpResponseDecoder {
        boolean headRequest;
        private boolean closed;

        Decoder() {
            super(new HttpDecoderConfig().setMaxInitialLineLength(8192)
                    .setMaxHeaderSize(Upstream.MAX_RESPONSE_HEAD).setMaxChunkSize(1 << 20));
        }

        void step(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            try {
                decode(ctx, in, out);
            } catch (Exception e) { // decode reports bad input as a failed object; this is a bug
                throw new IllegalStateException(e);
            }
        }

        void last(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            try {
                decodeLast(ctx, in, out);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }

        /** Frees the decoder's scratch buffer (a decoder in a pipeline does this when removed). */
        void close() {
            if (!closed) {
                closed = true;
                try {
                    handlerRemoved0(null);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }

        @Override
        protected boolean isContentAlwaysEmpty(HttpMessage msg) {
            if (headRequest && msg instanceof HttpResponse r && r.status().code() >= 200) {
                return true;
            }
            return super.isContentAlwaysEmpty(msg);
        }

    }
}
