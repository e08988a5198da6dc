package dev.tunnel.server.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.testing.Fuzz;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class ResponseReaderTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
    private static final String CHUNKED = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: t\r\n\r\n";
    private final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    private final ChannelHandlerContext ctx = channel.pipeline().firstContext();

    @AfterEach
    void close() {
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    /** What the reader made of {@code input}, fed in pieces cut at {@code cuts}. */
    private static final class Result {
        final StringBuilder bytes = new StringBuilder();
        final List<Integer> heads = new ArrayList<>();
        final List<ResponseHead> whole = new ArrayList<>();
        int ends;
        boolean failed;

        void take(List<Object> out) {
            for (Object o : out) {
                if (o instanceof ByteBuf b) {
                    bytes.append(b.toString(StandardCharsets.ISO_8859_1));
                    b.release();
                } else if (o instanceof HttpObject h && h.decoderResult().isFailure()) {
                    failed = true;
                } else if (o instanceof ResponseHead r) {
                    heads.add(r.code());
                    whole.add(r);
                } else if (o == ResponseReader.END) {
                    ends++;
                }
            }
            out.clear();
        }
    }

    private Result read(ResponseReader reader, String input, int... cuts) {
        Result result = new Result();
        List<Object> out = new ArrayList<>();
        int from = 0;
        for (int cut : cuts) {
            reader.read(buf(input.substring(from, cut)), out);
            result.take(out);
            from = cut;
        }
        reader.read(buf(input.substring(from)), out);
        result.take(out);
        return result;
    }

    private static ByteBuf buf(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    @Test
    void responsesPassAsTheBytesTheyArrivedIn() {
        ResponseReader reader = new ResponseReader(ctx, Map.of());
        Result r = read(reader, OK + CHUNKED + "HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(r.bytes.toString()).isEqualTo(OK + CHUNKED + "HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(r.heads).containsExactly(200, 200, 204);
        assertThat(r.ends).isEqualTo(3);
        reader.release();
    }

    @Test
    void everySplitGivesTheSameBytesAndEnds() {
        String input = "\r\n" + OK + CHUNKED + "HTTP/1.1 100 Continue\r\n\r\n" + OK;
        for (int a = 0; a <= input.length(); a++) {
            int b = Math.min(input.length(), a + 7);
            ResponseReader reader = new ResponseReader(ctx, Map.of());
            Result r = read(reader, input, a, b);
            assertThat(r.bytes.toString()).as("cut at %d and %d", a, b).isEqualTo(input);
            assertThat(r.heads).containsExactly(200, 200, 100, 200);
            assertThat(r.ends).isEqualTo(4);
            reader.release();
        }
    }

    @Test
    void aPartialHeadIsHeldBackUntilItIsComplete() {
        ResponseReader reader = new ResponseReader(ctx, Map.of());
        List<Object> out = new ArrayList<>();
        reader.read(buf("HTTP/1.1 200 OK\r\nContent-Le"), out);
        assertThat(out).isEmpty();
        reader.read(buf("ngth: 2\r\n\r\nok"), out);
        Result r = new Result();
        r.take(out);
        assertThat(r.bytes.toString()).isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        reader.release();
    }

    @Test
    void aHeadRequestsResponseHasNoBody() {
        ResponseReader reader = new ResponseReader(ctx, Map.of());
        reader.expectHeadResponse(true);
        Result r = read(reader, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
        assertThat(r.ends).isEqualTo(1);
        reader.expectHeadResponse(false);
        r = read(reader, OK);
        assertThat(r.bytes.toString()).isEqualTo(OK);
        assertThat(r.ends).isEqualTo(1);
        reader.release();
    }

    @Test
    void responseHeadersSetRewriteTheHeadAndKeepTheBody() {
        ResponseReader reader = new ResponseReader(ctx, Map.of("X-Set", "yes"));
        Result r = read(reader, "HTTP/1.1 100 Continue\r\n\r\n" + CHUNKED, 40);
        assertThat(r.bytes.toString()).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Set: yes\r\n\r\n"
                + CHUNKED.substring(CHUNKED.indexOf("\r\n\r\n") + 4));
        reader.release();
    }

    @Test
    void ambiguousFramingFailsRatherThanPassing() {
        ResponseReader reader = new ResponseReader(ctx, Map.of());
        Result r = read(reader, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n0\r\n\r\n");
        assertThat(r.failed).isTrue();
        assertThat(r.bytes.toString()).isEmpty();
        reader.release();
        reader = new ResponseReader(ctx, Map.of());
        r = read(reader, "HTTP/1.1 200 OK\nContent-Length: 3\n\nabc");
        assertThat(r.failed).as("bare LF").isTrue();
        reader.release();
    }

    @Test
    void afterA101EveryByteIsRaw() {
        ResponseReader reader = new ResponseReader(ctx, Map.of("X-Set", "no"));
        String head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: x\r\n\r\n";
        Result r = read(reader, head + "\u0081\u0002hiHTTP/1.1 200", head.length() + 3);
        assertThat(r.heads).containsExactly(101);
        assertThat(r.bytes.toString()).isEqualTo(head + "\u0081\u0002hiHTTP/1.1 200");
        reader.release();
    }

    @Test
    void aResponseDelimitedByTheCloseEndsAtTheFin() {
        ResponseReader reader = new ResponseReader(ctx, Map.of());
        Result r = read(reader, "HTTP/1.0 200 OK\r\n\r\nall of it");
        assertThat(r.ends).isZero();
        List<Object> out = new ArrayList<>();
        reader.finish(out);
        r.take(out);
        assertThat(r.ends).isEqualTo(1);
        assertThat(r.bytes.toString()).isEqualTo("HTTP/1.0 200 OK\r\n\r\nall of it");
    }

    @Test
    void aFinInsideAHeadEndsNothing() {
        ResponseReader reader = new ResponseReader(ctx, Map.of());
        Result r = read(reader, "HTTP/1.1 200 OK\r\nConte");
        List<Object> out = new ArrayList<>();
        reader.finish(out);
        r.take(out);
        assertThat(r.ends).isZero();
        assertThat(r.bytes.toString()).isEmpty();
    }

    @Test
    void bytesThatAreNotHttpFailAndAreDropped() {
        ResponseReader reader = new ResponseReader(ctx, Map.of());
        Result r = read(reader, OK + "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\nzzz", OK.length() + 4);
        assertThat(r.bytes.toString()).isEqualTo(OK);
        assertThat(r.failed).isTrue();
        r = read(reader, "more");
        assertThat(r.bytes.toString()).isEmpty();
        reader.release();
    }

    @Test
    void aHeadLargerThanTheLimitFails() {
        ResponseReader reader = new ResponseReader(ctx, Map.of());
        Result r = read(reader, "HTTP/1.1 200 OK\r\nX-Big: " + "x".repeat(Upstream.MAX_RESPONSE_HEAD) + "\r\n\r\n");
        assertThat(r.failed).isTrue();
        assertThat(r.bytes.toString()).isEmpty();
        reader.release();
    }

    @Test
    void plainHeadsAreFramedWithoutTheDecoderAsTheDecoderWould() {
        String keepAlive = "HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Length: 4\r\nConnection: keep-alive\r\n\r\npong";
        String close = "HTTP/1.1 404 Not Found\r\ncontent-length:0\r\nConnection: Keep-Alive ,  CLOSE\r\n\r\n";
        String empty = "HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n";
        for (boolean scan : new boolean[] {true, false}) {
            ResponseReader reader = new ResponseReader(ctx, Map.of(), scan);
            Result r = read(reader, keepAlive + close + empty + OK);
            assertThat(r.bytes.toString()).isEqualTo(keepAlive + close + empty + OK);
            assertThat(r.whole).as("scan %s", scan).containsExactly(new ResponseHead(200, true, true),
                    new ResponseHead(404, false, true), new ResponseHead(304, true, true),
                    new ResponseHead(200, true, true));
            assertThat(r.ends).isEqualTo(4);
            assertThat(reader.atRest()).isTrue();
            reader.release();
        }
    }

    @Test
    void aPlainHeadsBodyCutShortByTheFinEndsNothing() {
        ResponseReader reader = new ResponseReader(ctx, Map.of());
        Result r = read(reader, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
        assertThat(r.heads).containsExactly(200);
        assertThat(reader.atRest()).isFalse();
        List<Object> out = new ArrayList<>();
        reader.finish(out);
        r.take(out);
        assertThat(r.ends).isZero();
        assertThat(r.bytes.toString()).isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
    }

    /** Heads near the plain ones: each differs from a plain head in one way the scan must notice. */
    private static final String[] NEAR_PLAIN = {
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length:\t5 \r\n\r\nhello",
        "HTTP/1.1 200 OK\r\n Content-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nX-A: b\r\n c\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nX-A: \u00e9t\u00e9\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nX-A: a\u0000b\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 \r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        "HTTP/1.1 199 Odd\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 600 Odd\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
        "HTTP/1.0 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nConnection: keep-alive,close\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nConnection: closed\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\n\r\nto the close",
        "HTTP/1.1 200 OK\r\nX-Long: " + "l".repeat(700) + "\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nX-Longer: " + "l".repeat(PlainResponseHead.MAX_SCANNED) + "\r\nContent-Length: 5\r\n\r\nhello",
    };

    @Test
    @Timeout(180)
    void theScanAndTheDecoderFrameEveryInputAlike() {
        Fuzz.run("vhost.response.plain", rnd -> {
            byte[] input = NearPlainInputs.mutated(rnd, NEAR_PLAIN, ":\r\n \t,0");
            boolean head = rnd.nextInt(6) == 0;
            int[] cuts = NearPlainInputs.cuts(rnd, input.length);
            Result scanned = feed(new ResponseReader(ctx, Map.of(), true), input, cuts, head);
            Result decoded = feed(new ResponseReader(ctx, Map.of(), false), input, cuts, head);
            String seen = new String(input, StandardCharsets.ISO_8859_1);
            assertThat(scanned.failed).as("failed: %s", seen).isEqualTo(decoded.failed);
            assertThat(scanned.whole).as("heads: %s", seen).isEqualTo(decoded.whole);
            assertThat(scanned.ends).as("ends: %s", seen).isEqualTo(decoded.ends);
            assertThat(scanned.bytes.toString()).as("bytes: %s", seen).isEqualTo(decoded.bytes.toString());
        });
    }

    /** Feeds {@code input} cut at {@code cuts}, then the end of the stream. */
    private Result feed(ResponseReader reader, byte[] input, int[] cuts, boolean head) {
        reader.expectHeadResponse(head);
        Result r = new Result();
        List<Object> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= cuts.length; i++) {
            int to = i < cuts.length ? cuts[i] : input.length;
            reader.read(Unpooled.copiedBuffer(input, from, to - from), out);
            r.take(out);
            from = to;
        }
        reader.finish(out);
        r.take(out);
        return r;
    }

    @Test
    @Timeout(180)
    void fuzzedResponsesAreFramedOrFailedNeverLeaked() {
        String[] seeds = {OK, CHUNKED, "HTTP/1.1 304 Not Modified\r\nETag: x\r\n\r\n",
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\nraw", "HTTP/1.0 200 OK\r\n\r\nbody"};
        Fuzz.run("vhost.response", rnd -> {
            byte[] input = (seeds[rnd.nextInt(seeds.length)] + seeds[rnd.nextInt(seeds.length)])
                    .getBytes(StandardCharsets.ISO_8859_1);
            int mutations = Fuzz.between(rnd, 0, 6);
            for (int i = 0; i < mutations; i++) {
                input[rnd.nextInt(input.length)] = (byte) rnd.nextInt(256);
            }
            ResponseReader reader = new ResponseReader(ctx, rnd.nextBoolean() ? Map.of() : Map.of("X-A", "b"));
            reader.expectHeadResponse(rnd.nextInt(8) == 0);
            Result r = new Result();
            List<Object> out = new ArrayList<>();
            int off = 0;
            while (off < input.length) {
                int n = Math.min(input.length - off, Fuzz.between(rnd, 1, 64));
                reader.read(Unpooled.wrappedBuffer(input, off, n), out);
                r.take(out);
                off += n;
            }
            if (rnd.nextBoolean()) {
                reader.finish(out);
                r.take(out);
            } else {
                reader.release();
            }
            assertThat(r.bytes.length()).isLessThanOrEqualTo(input.length + 64);
        });
    }
}
