package dev.tunnel.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.testing.ControlWire;
import dev.tunnel.protocol.testing.Fuzz;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Seeded random fuzzing of {@link FrameDecoder} and {@link ControlCodec}: random bytes, and
 * valid streams with bytes flipped, cut or inserted, fed in random chunks. Whatever arrives, the
 * decoder either yields frames or fails with a {@link ProtocolException}, never anything else,
 * and every buffer is released (paranoid leak detection and LeakGuard check that).
 *
 * <p>Cases per test: {@code -Dfuzz.tries} (1,000 in CI); base seed {@code -Dfuzz.seed} (random and
 * printed when unset). See {@link Fuzz} and docs/security.md for the long run and replaying a
 * failure.
 */
class FrameFuzzTest {

    @Test
    void randomBytesInRandomChunksDecodeOrFailCleanly() {
        Fuzz.run("FrameFuzzTest.randomBytesInRandomChunksDecodeOrFailCleanly",
                rnd -> decode(Fuzz.bytes(rnd, 600), Fuzz.chunks(rnd, 8, 64)));
    }

    @Test
    void mutatedValidStreamsDecodeOrFailCleanly() {
        Fuzz.run("FrameFuzzTest.mutatedValidStreamsDecodeOrFailCleanly", rnd -> {
            byte[] wire = encode(Fuzz.frames(rnd, 6));
            decode(Fuzz.mutate(rnd, wire, 4), Fuzz.chunks(rnd, 8, 64));
        });
    }

    @Test
    void controlCodecDecodesOrRejectsAndWhatItDecodesReencodesToTheSameMessage() {
        Fuzz.run("FrameFuzzTest.controlCodecDecodesOrRejectsAndWhatItDecodesReencodesToTheSameMessage", rnd -> {
            ByteBuf in = Unpooled.wrappedBuffer(Fuzz.controlPayload(rnd, 300));
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
        });
    }

    @Test
    void everyControlMessageRoundTrips() {
        Fuzz.run("FrameFuzzTest.everyControlMessageRoundTrips", rnd -> {
            ControlMessage message = Fuzz.controlMessage(rnd);
            ByteBuf out = Unpooled.buffer();
            try {
                ControlCodec.encode(message, out);
                assertThat(ControlCodec.decode(out)).isEqualTo(message);
            } finally {
                out.release();
            }
        });
    }

    private static void decode(byte[] wire, int[] chunks) {
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(4096, 2048));
        try {
            int offset = 0;
            int i = 0;
            while (offset < wire.length) {
                int n = Math.min(wire.length - offset, chunks[i++ % chunks.length]);
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
        ByteBuf all = ControlWire.encode(frames.toArray(new Frame[0]));
        try {
            return ByteBufUtil.getBytes(all);
        } finally {
            all.release();
        }
    }
}
