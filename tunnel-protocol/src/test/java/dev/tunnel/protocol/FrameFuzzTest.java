package dev.tunnel.protocol;

import static org.assertj.core.api.Assertions.assertThat;

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
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Property-based fuzzing of {@link FrameDecoder} and {@link ControlCodec}: random bytes, and
 * valid streams with bytes flipped, cut or inserted, fed in random chunks. Whatever arrives, the
 * decoder either yields frames or fails with a {@link ProtocolException}, never anything else,
 * and every buffer is released (paranoid leak detection and LeakGuard check that).
 *
 * <p>Cases per property: {@code jqwik.tries.default} ({@code -Dfuzz.tries}, 2,000 in CI);
 * see docs/security.md for the million-case run.
 */
class FrameFuzzTest {

    @Property
    void randomBytesInRandomChunksDecodeOrFailCleanly(@ForAll @Size(max = 600) byte[] wire,
                                                      @ForAll @Size(min = 1, max = 8) List<@net.jqwik.api.constraints.IntRange(min = 1, max = 64) Integer> chunks) {
        decode(wire, chunks);
    }

    @Property
    void mutatedValidStreamsDecodeOrFailCleanly(@ForAll("frames") List<Frame> frames,
                                               @ForAll("mutations") List<int[]> mutations,
                                               @ForAll @Size(min = 1, max = 8) List<@net.jqwik.api.constraints.IntRange(min = 1, max = 64) Integer> chunks) {
        byte[] wire = encode(frames);
        decode(mutate(wire, mutations), chunks);
    }

    @Property
    void controlCodecDecodesOrRejectsAndWhatItDecodesReencodesToTheSameMessage(@ForAll @Size(max = 300) byte[] payload) {
        ByteBuf in = Unpooled.wrappedBuffer(payload);
        ControlMessage message;
        try {
            message = ControlCodec.decode(in);
        } catch (ProtocolException expected) {
            return;
        }
        ByteBuf out = Unpooled.buffer();
        try {
            ControlCodec.encode(message, out);
            // Not byte-identical: malformed UTF-8 in a string decodes to U+FFFD (found by the
            // million-case run), which re-encodes as three bytes. The message is stable, though.
            assertThat(ControlCodec.decode(out)).isEqualTo(message);
        } finally {
            out.release();
        }
    }

    @Property
    void everyControlMessageRoundTrips(@ForAll("controlMessages") ControlMessage message) {
        ByteBuf out = Unpooled.buffer();
        try {
            ControlCodec.encode(message, out);
            assertThat(ControlCodec.decode(out)).isEqualTo(message);
        } finally {
            out.release();
        }
    }

    private static void decode(byte[] wire, List<Integer> chunks) {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(4096, 2048));
        try {
            int offset = 0;
            int i = 0;
            while (offset < wire.length) {
                int n = Math.min(wire.length - offset, chunks.get(i++ % chunks.size()));
                ByteBuf chunk = PooledByteBufAllocator.DEFAULT.buffer(n).writeBytes(wire, offset, n);
                offset += n;
                try {
                    channel.writeInbound(chunk);
                } catch (DecoderException e) {
                    // Rejected (the connection would be closed): only ever our ProtocolException.
                    assertThat(e instanceof ProtocolException || e.getCause() instanceof ProtocolException)
                            .as("unexpected %s", e).isTrue();
                }
                Object frame;
                while ((frame = channel.readInbound()) != null) {
                    assertThat(frame).isInstanceOf(Frame.class);
                    ReferenceCountUtil.release(frame);
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    private static byte[] encode(List<Frame> frames) {
        EmbeddedChannel encoder = new EmbeddedChannel(new FrameEncoder());
        ByteBuf all = Unpooled.buffer();
        try {
            for (Frame f : frames) {
                encoder.writeOutbound(f);
            }
            ByteBuf b;
            while ((b = encoder.readOutbound()) != null) {
                all.writeBytes(b);
                b.release();
            }
            return ByteBufUtil.getBytes(all);
        } finally {
            all.release();
            encoder.finishAndReleaseAll();
        }
    }

    /** Each mutation is {kind, position, value}: 0 flip a byte, 1 cut the stream there, 2 insert a byte. */
    private static byte[] mutate(byte[] wire, List<int[]> mutations) {
        byte[] out = wire;
        for (int[] m : mutations) {
            if (out.length == 0) {
                break;
            }
            int at = Math.floorMod(m[1], out.length);
            switch (m[0]) {
                case 0 -> out[at] = (byte) m[2];
                case 1 -> out = java.util.Arrays.copyOf(out, at);
                default -> {
                    byte[] longer = new byte[out.length + 1];
                    System.arraycopy(out, 0, longer, 0, at);
                    longer[at] = (byte) m[2];
                    System.arraycopy(out, at, longer, at + 1, out.length - at);
                    out = longer;
                }
            }
        }
        return out;
    }

    @Provide
    Arbitrary<List<int[]>> mutations() {
        return Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.integers(),
                Arbitraries.integers().between(0, 255)).as((k, p, v) -> new int[] {k, p, v}).list().ofMaxSize(4);
    }

    @Provide
    Arbitrary<List<Frame>> frames() {
        Arbitrary<Integer> stream = Arbitraries.integers().between(1, 9);
        Arbitrary<Frame> data = Combinators.combine(stream, Arbitraries.bytes().array(byte[].class).ofMaxSize(100),
                Arbitraries.of(true, false)).as((id, bytes, fin) -> new DataFrame(id, Unpooled.wrappedBuffer(bytes), fin));
        Arbitrary<Frame> open = Combinators.combine(stream, Arbitraries.integers(), strings())
                .as((id, proxy, source) -> new OpenFrame(id, proxy, source));
        Arbitrary<Frame> window = Combinators.combine(stream, Arbitraries.integers().between(1, Integer.MAX_VALUE))
                .as(WindowUpdateFrame::new);
        Arbitrary<Frame> reset = Combinators.combine(stream, Arbitraries.integers()).as(ResetFrame::new);
        Arbitrary<Frame> control = controlMessages().map(ControlFrame::new);
        return Arbitraries.oneOf(data, open, window, reset, control).list().ofMaxSize(6);
    }

    @Provide
    static Arbitrary<ControlMessage> controlMessages() {
        Arbitrary<String> s = strings();
        Arbitrary<Integer> i = Arbitraries.integers();
        Arbitrary<Login> login = Combinators.combine(s, s, s, Arbitraries.longs(), s, s, Arbitraries.of(true, false), i)
                .flatAs((a, b, c, t, n, p, mux, pool) -> Combinators.combine(i, s, s)
                        .as((w, user, cert) -> new Login(a, b, c, t, n, p, mux, pool, w, user, cert)));
        Arbitrary<LoginResult> result = Combinators.combine(i, s, s, s, i, s).as(LoginResult::new);
        return Arbitraries.oneOf(login, result,
                Combinators.combine(i, s, s, i).as(NewProxy::new),
                Combinators.combine(i, s, i, s).as(NewProxyResult::new),
                Combinators.combine(i, s).as(CloseProxy::new),
                Arbitraries.longs().map(Ping::new), Arbitraries.longs().map(Pong::new), s.map(Challenge::new));
    }

    private static Arbitrary<String> strings() {
        return Arbitraries.strings().ofMaxLength(24);
    }
}
