package dev.tunnel.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.protocol.ControlMessage.Challenge;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.ControlMessage.LoginResult;
import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.ControlMessage.NewProxyResult;
import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.ControlMessage.Pong;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.EncoderException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * FrameEncoder -> FrameDecoder round trips, arbitrary splitting of the byte stream, and every
 * way the decoder rejects a malformed peer (with the message a user would read in the log).
 */
@Timeout(60) // a hang guard: the split property decodes thousands of streams, slow on a loaded machine
class FrameCodecTest {
    private static final String UNICODE = "héllo wörld ☃ 日本語 \uD83D\uDE80";

    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void releaseChannels() {
        for (EmbeddedChannel ch : channels) {
            ch.finishAndReleaseAll();
        }
    }

    static Stream<ControlMessage> controlMessages() {
        return Stream.of(
                new Login("0.1.0", UNICODE, "run-1", 1_700_000_000_123L, "nonce", "proof", true, 3, 262_144, "alice",
                        "sha256:AB:CD", List.of("options", "proxy.tcp", UNICODE), Options.of("metadatas.owner", UNICODE)),
                new Login("", "", "", Long.MIN_VALUE, "", "", false, 0, Integer.MAX_VALUE, "", "", List.of(), Options.EMPTY),
                new LoginResult(LoginResult.OK, "", "0.1.0", "sess-" + UNICODE, 1 << 20, "proof",
                        List.of("options", "proxies.live", "proxy.tcp"), Options.EMPTY),
                new LoginResult(LoginResult.AUTH_FAILED, "bad token: " + UNICODE, "0.1.0", "", 0, "", List.of(),
                        Options.EMPTY),
                new LoginResult(LoginResult.THROTTLED, "too many", "0.1.0", "", 0, "", List.of(), Options.EMPTY),
                new Challenge("0123456789abcdef"),
                new Challenge(UNICODE),
                new NewProxy(7, "ssh-" + UNICODE, "tcp", Options.of("remotePort", "6000")),
                new NewProxy(-1, "x", "tcp", Options.EMPTY),
                new NewProxy(9, "web", "http", Options.builder().putList("customDomains", List.of("a.example", UNICODE))
                        .putMap("requestHeaders.set", Map.of("X-From", "tunnel")).put("locations[0]", "/").build()),
                new NewProxyResult(7, "ssh", 6000, "", Options.EMPTY),
                new NewProxyResult(8, "web", 0, "port 80 not allowed: " + UNICODE, Options.EMPTY),
                new NewProxyResult(9, "web", 0, "", Options.of("url[0]", "http://a.example/")),
                new CloseProxy(7, UNICODE),
                new Ping(Long.MAX_VALUE),
                new Pong(-42L),
                new Login("v", "h".repeat(ControlCodec.MAX_STRING), "r", 0, "n", "p", false, 1, 1024, "u".repeat(ControlCodec.MAX_STRING),
                        "c", List.of("c".repeat(ControlCodec.MAX_STRING)), Options.of("k".repeat(Options.MAX_KEY),
                        "v".repeat(ControlCodec.MAX_STRING))),
                new ControlMessage.ReqWorkConn(5),
                new ControlMessage.NewWorkConn("42", 1_700_000_000_123L, "nonce", "proof-" + UNICODE),
                ControlMessage.ReqWorkConn.issued(List.of("a".repeat(64), "b".repeat(64))),
                new ControlMessage.NewWorkConn("42", 1_700_000_000_123L, "nonce", "proof", "c".repeat(64)),
                new ControlMessage.StartWorkConn(7, "203.0.113.9:51234"),
                new ControlMessage.PakeHello("alice-" + UNICODE),
                new ControlMessage.PakeHello("bob", "c2FsdA==", "QUJD"),
                new ControlMessage.PakeShare("QUJD"),
                new ControlMessage.PakeChallenge("c2FsdA==", "REVG"),
                new ControlMessage.Goodbye("client shutting down " + UNICODE));
    }

    @Test
    void bytesBehindStartWorkConnAreLeftRawForWhoeverRemovesTheDecoder() {
        EmbeddedChannel ch = new EmbeddedChannel(workConnDecoder());
        channels.add(ch);
        ByteBuf wire = Unpooled.wrappedBuffer(encode(List.of(
                new ControlFrame(new ControlMessage.StartWorkConn(1, "src")))), "GET / HTTP/1.1\r\n".getBytes());
        ch.writeInbound(wire);
        assertThat((Object) ch.readInbound()).isEqualTo(new ControlFrame(new ControlMessage.StartWorkConn(1, "src")));
        assertThat((Object) ch.readInbound()).as("the raw bytes are not decoded as frames").isNull();
        ch.pipeline().removeFirst();
        ByteBuf raw = ch.readInbound();
        assertThat(raw.toString(java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("GET / HTTP/1.1\r\n");
        raw.release();
    }

    @Test
    void aHandlerThatRemovesTheDecoderOnStartGetsTheRawBytesInOrder() {
        List<Object> seen = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel(workConnDecoder(), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof ControlFrame) {
                    ctx.pipeline().removeFirst(); // the decoder, while it is handing on START
                    seen.add(msg);
                } else {
                    ByteBuf raw = (ByteBuf) msg;
                    seen.add(raw.toString(java.nio.charset.StandardCharsets.US_ASCII));
                    raw.release();
                }
            }
        });
        channels.add(ch);
        ch.writeInbound(Unpooled.wrappedBuffer(encode(List.of(
                new ControlFrame(new ControlMessage.StartWorkConn(1, "src")))), "GET / ".getBytes()));
        ch.writeInbound(Unpooled.wrappedBuffer("HTTP/1.1\r\n".getBytes()));
        assertThat(seen).containsExactly(new ControlFrame(new ControlMessage.StartWorkConn(1, "src")), "GET / ", "HTTP/1.1\r\n");
    }

    @Test
    void theSessionFrameDecoderDecodesOnBehindStartWorkConn() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder());
        channels.add(ch);
        ch.writeInbound(Unpooled.wrappedBuffer(encode(List.of(
                new ControlFrame(new ControlMessage.StartWorkConn(1, "src")), new ControlFrame(new Ping(5))))));
        assertThat((Object) ch.readInbound()).isEqualTo(new ControlFrame(new ControlMessage.StartWorkConn(1, "src")));
        assertThat((Object) ch.readInbound()).isEqualTo(new ControlFrame(new Ping(5)));
    }

    @Test
    void theHandshakeDecoderRefusesStreamFrames() {
        EmbeddedChannel ch = new EmbeddedChannel(workConnDecoder());
        channels.add(ch);
        ByteBuf open = Unpooled.wrappedBuffer(encode(List.of(new OpenFrame(1, 7, "src"))));
        assertThatThrownBy(() -> ch.writeInbound(open)).hasMessageContaining("before the handshake finished");
    }

    /** The client's work connection decoder: control frames up to START_WORK_CONN. */
    private static ControlFrameDecoder workConnDecoder() {
        return new ControlFrameDecoder(m -> m instanceof ControlMessage.StartWorkConn);
    }

    @ParameterizedTest
    @MethodSource("controlMessages")
    void controlMessageRoundTrips(ControlMessage message) {
        assertThat(roundTrip(new ControlFrame(message))).containsExactly(new ControlFrame(message));
    }

    @Test
    void streamFramesRoundTrip() {
        List<Frame> decoded = roundTrip(
                new OpenFrame(1, 42, "203.0.113.9:51234 " + UNICODE),
                new OpenFrame(2, 0, ""),
                new WindowUpdateFrame(3, 1),
                new WindowUpdateFrame(4, Integer.MAX_VALUE),
                new ResetFrame(5, ResetCode.FLOW_CONTROL_ERROR),
                new ResetFrame(-1, -1));
        assertThat(decoded).containsExactly(
                new OpenFrame(1, 42, "203.0.113.9:51234 " + UNICODE),
                new OpenFrame(2, 0, ""),
                new WindowUpdateFrame(3, 1),
                new WindowUpdateFrame(4, Integer.MAX_VALUE),
                new ResetFrame(5, ResetCode.FLOW_CONTROL_ERROR),
                new ResetFrame(-1, -1));
    }

    @Test
    void aLaneFrameOfAnEarlierReleaseIsAnUnknownFrameType() {
        EmbeddedChannel decoder = channel(new FrameDecoder());
        ByteBuf header = header((byte) 0x14, 0, 7, 0);
        assertThatThrownBy(() -> decoder.writeInbound(header))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("unknown frame type 0x14");
    }

    /** Sizes around the encoder's 1024-byte copy threshold, an empty FIN, and a 64 KiB chunk. */
    @ParameterizedTest
    @MethodSource("dataCases")
    void dataRoundTrips(int size, boolean fin) {
        byte[] payload = randomBytes(size, size);
        List<Frame> decoded = roundTrip(new DataFrame(9, Unpooled.wrappedBuffer(payload), fin));
        assertThat(decoded).hasSize(1);
        DataFrame data = (DataFrame) decoded.get(0);
        try {
            assertThat(data.streamId()).isEqualTo(9);
            assertThat(data.fin()).isEqualTo(fin);
            assertThat(ByteBufUtil.getBytes(data.content())).isEqualTo(payload);
        } finally {
            data.release();
        }
    }

    static Stream<Object[]> dataCases() {
        return Stream.of(
                new Object[] {0, true}, new Object[] {0, false}, new Object[] {1, false},
                new Object[] {1023, true}, new Object[] {1024, false}, new Object[] {1025, true},
                new Object[] {65_536, false}, new Object[] {FrameDecoder.DEFAULT_MAX_DATA_PAYLOAD, true});
    }

    /**
     * OPEN with the first bytes (capability mux.openData) decodes as OPEN then DATA: sizes around
     * the encoder's copy threshold, an empty FIN, and the largest fold, in one piece or byte by byte.
     */
    @ParameterizedTest
    @MethodSource("openDataCases")
    void openWithDataDecodesAsOpenThenData(int size, boolean fin) {
        byte[] payload = randomBytes(size, size + 1);
        OpenFrame open = new OpenFrame(11, 42, "203.0.113.9:51234 " + UNICODE);
        byte[] wire = encode(List.of(DataFrame.inOpen(open, Unpooled.wrappedBuffer(payload), fin),
                new WindowUpdateFrame(11, 4096)));
        assertThat(wire[1]).isEqualTo((byte) (Frame.FLAG_DATA | (fin ? Frame.FLAG_FIN : 0)));
        String data = "DATA 11 fin=" + fin + " " + ByteBufUtil.hexDump(payload);
        assertThat(describe(decodeInChunks(wire, new int[] {wire.length})))
                .containsExactly(open.toString(), data, new WindowUpdateFrame(11, 4096).toString());
        int[] ones = new int[wire.length];
        java.util.Arrays.fill(ones, 1);
        assertThat(describe(decodeInChunks(wire, ones))).containsExactly(open.toString(), data,
                new WindowUpdateFrame(11, 4096).toString());
    }

    static Stream<Object[]> openDataCases() {
        return Stream.of(new Object[] {0, true}, new Object[] {1, false}, new Object[] {1024, false},
                new Object[] {1025, true}, new Object[] {DataFrame.MAX_IN_OPEN, false});
    }

    /** The folded bytes can be at most the fold's maximum behind the longest OPEN fields. */
    @Test
    void anOpenWithDataBeyondItsMaximumIsRejectedFromTheHeaderAlone() {
        int max = 8 + ControlCodec.MAX_STRING + DataFrame.MAX_IN_OPEN;
        EmbeddedChannel decoder = channel(new FrameDecoder());
        ByteBuf header = header(Frame.TYPE_OPEN, Frame.FLAG_DATA, 1, max + 1);
        assertThatThrownBy(() -> decoder.writeInbound(header))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("frame length " + (max + 1) + " exceeds maximum " + max);
        assertRejected(header(Frame.TYPE_OPEN, Frame.FLAG_DATA, 1, 2).writeShort(0), "open frame truncated");
    }

    @Test
    void largeDataPayloadIsNotCopiedByTheEncoder() {
        EmbeddedChannel encoder = channel(new FrameEncoder());
        ByteBuf payload = Unpooled.wrappedBuffer(randomBytes(2048, 1));
        encoder.writeOutbound(new DataFrame(3, payload, false));
        ByteBuf header = encoder.readOutbound();
        ByteBuf body = encoder.readOutbound();
        try {
            assertThat(header.readableBytes()).isEqualTo(Frame.HEADER_LENGTH);
            assertThat(body).isSameAs(payload);
            assertThat(payload.refCnt()).isEqualTo(1);
        } finally {
            header.release();
            body.release();
        }
    }

    /**
     * A large payload spanning two reads is made of slices of both inputs, not a copy, also while
     * a frame decoded earlier from the first input is still held (as it is until a socket wrote it).
     */
    @Test
    void payloadSpanningTwoReadsIsNotCopied() {
        byte[] wire = encode(List.of(new DataFrame(1, Unpooled.wrappedBuffer(randomBytes(100, 5)), false),
                new DataFrame(1, Unpooled.wrappedBuffer(randomBytes(10_000, 6)), false)));
        // first frame: header at 0, payload 10..109; second: header at 110, payload 120..10119
        ByteBuf first = Unpooled.directBuffer().writeBytes(wire, 0, 600);
        ByteBuf second = Unpooled.directBuffer().writeBytes(wire, 600, wire.length - 600);
        first.retain();
        second.retain();
        EmbeddedChannel decoder = channel(new FrameDecoder());
        decoder.writeInbound(first);
        DataFrame held = decoder.readInbound();
        decoder.writeInbound(second);
        DataFrame spanning = decoder.readInbound();

        first.setByte(599, ~first.getByte(599));
        second.setByte(0, ~second.getByte(0));
        assertThat(spanning.content().readableBytes()).isEqualTo(10_000);
        assertThat(spanning.content().getByte(479)).isEqualTo(first.getByte(599));
        assertThat(spanning.content().getByte(480)).isEqualTo(second.getByte(0));
        held.release();
        spanning.release();
        first.release();
        second.release();
        assertThat(first.refCnt()).isZero();
        assertThat(second.refCnt()).isZero();
    }

    @Test
    void anySplitOfTheByteStreamDecodesToTheSameFrames() {
        List<Frame> frames = List.of(
                new ControlFrame(new Login("0.1.0", UNICODE, "run", 1L, "n", "p", true, 1, 65_536, "", "", List.of(),
                        Options.EMPTY)),
                new OpenFrame(1, 5, "198.51.100.1:4000"),
                new DataFrame(1, Unpooled.wrappedBuffer(randomBytes(3000, 2)), false),
                new DataFrame(1, Unpooled.wrappedBuffer(randomBytes(10, 3)), true),
                new DataFrame(1, Unpooled.EMPTY_BUFFER, true),
                new WindowUpdateFrame(1, 32_768),
                new ControlFrame(new Ping(99)),
                new ResetFrame(1, ResetCode.CANCEL));
        byte[] wire = encode(frames);
        List<String> expected = describe(decodeInChunks(wire, new int[] {wire.length}));

        int[] ones = new int[wire.length];
        java.util.Arrays.fill(ones, 1);
        assertThat(describe(decodeInChunks(wire, ones))).isEqualTo(expected);

        Random random = new Random(12345);
        for (int round = 0; round < 50; round++) {
            List<Integer> splits = new ArrayList<>();
            int left = wire.length;
            while (left > 0) {
                int n = Math.min(left, 1 + random.nextInt(64));
                splits.add(n);
                left -= n;
            }
            int[] chunks = splits.stream().mapToInt(Integer::intValue).toArray();
            assertThat(describe(decodeInChunks(wire, chunks))).as("round %d", round).isEqualTo(expected);
        }
        assertThat(expected).hasSize(frames.size());
    }

    // ---- rejections ----

    @Test
    void oversizedDataIsRejectedFromTheHeaderAlone() {
        EmbeddedChannel decoder = channel(new FrameDecoder(1000, 500));
        ByteBuf header = header(Frame.TYPE_DATA, 0, 1, 1001);
        assertThatThrownBy(() -> decoder.writeInbound(header))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("frame length 1001 exceeds maximum 1000");
    }

    @Test
    void oversizedControlIsRejectedFromTheHeaderAlone() {
        EmbeddedChannel decoder = channel(new FrameDecoder());
        long length = 0xFFFF_FFFFL;
        ByteBuf header = header(Frame.TYPE_CONTROL, 0, 0, (int) length);
        assertThatThrownBy(() -> decoder.writeInbound(header))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("frame length 4294967295 exceeds maximum " + FrameDecoder.DEFAULT_MAX_CONTROL_PAYLOAD);
    }

    @Test
    void oversizedOpenIsRejectedFromTheHeaderAlone() {
        EmbeddedChannel decoder = channel(new FrameDecoder());
        ByteBuf header = header(Frame.TYPE_OPEN, 0, 1, 9000);
        assertThatThrownBy(() -> decoder.writeInbound(header))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("frame length 9000 exceeds maximum " + (8 + ControlCodec.MAX_STRING));
    }

    @Test
    void dataAtExactlyTheMaximumIsAccepted() {
        EmbeddedChannel decoder = channel(new FrameDecoder(1000, 500));
        ByteBuf frame = header(Frame.TYPE_DATA, 0, 1, 1000).writeZero(1000);
        assertThat(decoder.writeInbound(frame)).isTrue();
        DataFrame data = decoder.readInbound();
        assertThat(data.content().readableBytes()).isEqualTo(1000);
        data.release();
    }

    @Test
    void truncatedControlMessageIsRejected() {
        // PING needs 8 bytes of payload after the kind; send 3.
        ByteBuf frame = header(Frame.TYPE_CONTROL, 0, 0, 4).writeByte(ControlCodec.PING).writeMedium(1);
        assertRejected(frame, "control message truncated: needed 8 more bytes, 3 left");
    }

    @Test
    void truncatedStringIsRejected() {
        // CLOSE_PROXY: id, then a string claiming 10 bytes with only 2 present.
        ByteBuf frame = header(Frame.TYPE_CONTROL, 0, 0, 1 + 4 + 2 + 2)
                .writeByte(ControlCodec.CLOSE_PROXY).writeInt(7).writeShort(10).writeShort(0x4142);
        assertRejected(frame, "control message truncated: needed 10 more bytes, 2 left");
    }

    @Test
    void overlongStringIsRejected() {
        ByteBuf frame = header(Frame.TYPE_CONTROL, 0, 0, 1 + 4 + 2)
                .writeByte(ControlCodec.CLOSE_PROXY).writeInt(7).writeShort(ControlCodec.MAX_STRING + 1);
        assertRejected(frame, "string of 4097 bytes exceeds maximum 4096");
    }

    @Test
    void emptyControlFrameIsRejected() {
        assertRejected(header(Frame.TYPE_CONTROL, 0, 0, 0), "empty control frame");
    }

    @Test
    void trailingBytesAfterControlMessageAreRejected() {
        ByteBuf frame = header(Frame.TYPE_CONTROL, 0, 0, 1 + 8 + 2)
                .writeByte(ControlCodec.PONG).writeLong(1).writeShort(0);
        assertRejected(frame, "control message kind 7 has 2 trailing bytes");
    }

    @Test
    void invalidBooleanIsRejected() {
        ByteBuf payload = Unpooled.buffer();
        ControlCodec.encode(new Login("v", "h", "r", 1, "n", "p", true, 1, 1024, "", "", List.of(), Options.EMPTY), payload);
        payload.setByte(payload.writerIndex() - 17, 2); // tcpMux, then poolCount, initialWindow, two empty strings, no capabilities, no options
        ByteBuf frame = header(Frame.TYPE_CONTROL, 0, 0, payload.readableBytes()).writeBytes(payload);
        payload.release();
        assertRejected(frame, "boolean field has value 2");
    }

    @Test
    void unknownControlKindIsRejected() {
        ByteBuf frame = header(Frame.TYPE_CONTROL, 0, 0, 1).writeByte(0x7f);
        assertRejected(frame, "unknown control message kind 127");
    }

    @Test
    void unknownFrameTypeIsRejected() {
        assertRejected(header((byte) 0x42, 0, 1, 0), "unknown frame type 0x42");
    }

    @Test
    void controlFrameOnAStreamIsRejected() {
        assertRejected(header(Frame.TYPE_CONTROL, 0, 3, 9), "control frame on stream 3 (expected 0)");
    }

    @Test
    void streamFramesOnStreamZeroAreRejected() {
        assertRejected(header(Frame.TYPE_DATA, 0, 0, 0), "frame type 0x11 on stream 0");
        assertRejected(header(Frame.TYPE_OPEN, 0, 0, 6), "frame type 0x10 on stream 0");
        assertRejected(header(Frame.TYPE_WINDOW_UPDATE, 0, 0, 4), "frame type 0x12 on stream 0");
        assertRejected(header(Frame.TYPE_RESET, 0, 0, 4), "frame type 0x13 on stream 0");
    }

    @Test
    void windowUpdateAndResetWithWrongLengthAreRejected() {
        assertRejected(header(Frame.TYPE_WINDOW_UPDATE, 0, 1, 8), "frame type 0x12 has length 8 (expected 4)");
        assertRejected(header(Frame.TYPE_WINDOW_UPDATE, 0, 1, 0), "frame type 0x12 has length 0 (expected 4)");
        assertRejected(header(Frame.TYPE_RESET, 0, 1, 3), "frame type 0x13 has length 3 (expected 4)");
    }

    @Test
    void windowUpdateOfZeroOrNegativeIsRejected() {
        assertRejected(header(Frame.TYPE_WINDOW_UPDATE, 0, 1, 4).writeInt(0),
                "window update of 0 on stream 1 (expected 1..2147483647)");
        assertRejected(header(Frame.TYPE_WINDOW_UPDATE, 0, 1, 4).writeInt(0x8000_0000),
                "window update of 2147483648 on stream 1 (expected 1..2147483647)");
    }

    @Test
    void truncatedOrPaddedOpenIsRejected() {
        assertRejected(header(Frame.TYPE_OPEN, 0, 1, 2).writeShort(0), "open frame truncated");
        assertRejected(header(Frame.TYPE_OPEN, 0, 1, 4 + 2 + 1).writeInt(1).writeShort(0).writeByte(0),
                "open frame has 1 trailing bytes");
    }

    /** Frames decoded before the bad one are delivered, and their retained slices released. */
    @Test
    void framesBeforeAnErrorAreDeliveredAndNothingLeaks() {
        byte[] good = encode(List.of(new DataFrame(1, Unpooled.wrappedBuffer(randomBytes(2000, 4)), false)));
        ByteBuf wire = Unpooled.buffer().writeBytes(good).writeBytes(header((byte) 0x42, 0, 1, 0));
        EmbeddedChannel decoder = channel(new FrameDecoder());
        assertThatThrownBy(() -> decoder.writeInbound(wire))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("unknown frame type 0x42");
        DataFrame data = decoder.readInbound();
        assertThat(data.content().readableBytes()).isEqualTo(2000);
        data.release();
    }

    /** A broken stream cannot be re-synchronised: the error is raised once, later bytes are dropped. */
    @Test
    void afterARejectionTheDecoderFailsOnceAndIgnoresLaterBytes() {
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder());
        assertThatThrownBy(() -> decoder.writeInbound(header(Frame.TYPE_DATA, 0, 1, 1 << 30)))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("frame length 1073741824 exceeds maximum 1048576");
        byte[] ping = encode(List.of(new ControlFrame(new Ping(1))));
        assertThat(decoder.writeInbound(Unpooled.wrappedBuffer(ping))).isFalse();
        // closing runs decodeLast: it must not raise the same error a second time
        assertThat(decoder.finishAndReleaseAll()).isFalse();
    }

    @Test
    void encoderRejectsOverlongStringWithoutLeaking() {
        EmbeddedChannel encoder = channel(new FrameEncoder());
        String name = "n".repeat(ControlCodec.MAX_STRING + 1);
        assertThatThrownBy(() -> encoder.writeOutbound(new ControlFrame(new CloseProxy(1, name))))
                .isInstanceOf(EncoderException.class)
                .hasMessageContaining("string of 4097 bytes exceeds maximum 4096");
        assertThatThrownBy(() -> encoder.writeOutbound(new OpenFrame(1, 1, name)))
                .isInstanceOf(EncoderException.class)
                .hasMessageContaining("string of 4097 bytes exceeds maximum 4096");
    }

    // ---- helpers ----

    private void assertRejected(ByteBuf wire, String message) {
        EmbeddedChannel decoder = channel(new FrameDecoder());
        assertThatThrownBy(() -> decoder.writeInbound(wire))
                .isInstanceOf(ProtocolException.class)
                .hasMessage(message);
        assertThat((Object) decoder.readInbound()).isNull();
    }

    private EmbeddedChannel channel(io.netty.channel.ChannelHandler handler) {
        EmbeddedChannel ch = new EmbeddedChannel(handler);
        channels.add(ch);
        return ch;
    }

    private static ByteBuf header(byte type, int flags, int streamId, int length) {
        return Unpooled.buffer().writeByte(type).writeByte(flags).writeInt(streamId).writeInt(length);
    }

    private byte[] encode(List<Frame> frames) {
        EmbeddedChannel encoder = new EmbeddedChannel(new FrameEncoder());
        for (Frame frame : frames) {
            encoder.writeOutbound(frame);
        }
        ByteBuf all = Unpooled.buffer();
        ByteBuf part;
        while ((part = encoder.readOutbound()) != null) {
            all.writeBytes(part);
            part.release();
        }
        encoder.finishAndReleaseAll();
        byte[] bytes = ByteBufUtil.getBytes(all);
        all.release();
        return bytes;
    }

    private List<Frame> roundTrip(Frame... frames) {
        byte[] wire = encode(List.of(frames));
        return decodeInChunks(wire, new int[] {wire.length});
    }

    private static List<Frame> decodeInChunks(byte[] wire, int[] chunks) {
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder());
        int offset = 0;
        for (int n : chunks) {
            ByteBuf chunk = decoder.alloc().buffer(n).writeBytes(wire, offset, n);
            decoder.writeInbound(chunk);
            offset += n;
        }
        List<Frame> out = new ArrayList<>();
        Frame f;
        while ((f = decoder.readInbound()) != null) {
            out.add(f);
        }
        assertThat(decoder.finishAndReleaseAll()).isFalse();
        return out;
    }

    /** Releases DATA frames and turns every frame into a comparable string. */
    private static List<String> describe(List<Frame> frames) {
        List<String> out = new ArrayList<>();
        for (Frame f : frames) {
            if (f instanceof DataFrame d) {
                out.add("DATA " + d.streamId() + " fin=" + d.fin() + " " + ByteBufUtil.hexDump(d.content()));
                d.release();
            } else {
                out.add(f.toString());
            }
        }
        return out;
    }

    private static byte[] randomBytes(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
