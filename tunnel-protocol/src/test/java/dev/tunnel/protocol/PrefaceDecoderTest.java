package dev.tunnel.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.protocol.ControlMessage.Ping;
import dev.tunnel.protocol.PrefaceDecoder.PrefaceEvent;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The first bytes of a connection: a valid preface, and the mistakes a user makes in practice. */
@Timeout(10)
class PrefaceDecoderTest {

    /** Records user events and reads in the order they arrive. */
    private static final class Recorder extends ChannelInboundHandlerAdapter {
        final List<Object> seen = new ArrayList<>();

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            seen.add(evt);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            seen.add(msg);
        }
    }

    @Test
    void validPrefaceFiresEventRemovesItselfAndPassesTheRestOnUnchanged() {
        Recorder recorder = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new PrefaceDecoder(), recorder);
        ByteBuf wire = Preface.encode(ch.alloc()).writeBytes("rest of stream".getBytes(StandardCharsets.US_ASCII));
        ch.writeInbound(wire);

        assertThat(ch.pipeline().get(PrefaceDecoder.class)).isNull();
        assertThat(recorder.seen).hasSize(2);
        assertThat(recorder.seen.get(0)).isEqualTo(new PrefaceEvent(Preface.VERSION));
        ByteBuf rest = (ByteBuf) recorder.seen.get(1);
        assertThat(rest.toString(StandardCharsets.US_ASCII)).isEqualTo("rest of stream");
        rest.release();

        // later bytes go straight to the next handler
        ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
        ByteBuf later = (ByteBuf) recorder.seen.get(2);
        assertThat(ByteBufUtil.getBytes(later)).containsExactly(1, 2, 3);
        later.release();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void prefaceFedByteByByteThenFramesDecode() {
        Recorder recorder = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new PrefaceDecoder(), new FrameDecoder(), recorder);
        EmbeddedChannel encoder = new EmbeddedChannel(new FrameEncoder());
        encoder.writeOutbound(new ControlFrame(new Ping(77)));
        ByteBuf frame = encoder.readOutbound();
        ByteBuf wire = Preface.encode(ch.alloc()).writeBytes(frame);
        frame.release();
        encoder.finishAndReleaseAll();

        while (wire.isReadable()) {
            ch.writeInbound(wire.readRetainedSlice(1));
        }
        wire.release();
        assertThat(recorder.seen).containsExactly(new PrefaceEvent(Preface.VERSION), new ControlFrame(new Ping(77)));
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void prefaceAndFrameInOneBufferReachTheFrameDecoderAfterTheEvent() {
        Recorder recorder = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new PrefaceDecoder(), new FrameDecoder(), recorder);
        ByteBuf wire = Preface.encode(ch.alloc())
                .writeByte(Frame.TYPE_WINDOW_UPDATE).writeByte(0).writeInt(3).writeInt(4).writeInt(500);
        ch.writeInbound(wire);
        assertThat(recorder.seen).containsExactly(new PrefaceEvent(Preface.VERSION), new WindowUpdateFrame(3, 500));
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void otherVersionIsReportedToTheNextHandler() {
        Recorder recorder = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new PrefaceDecoder(), recorder);
        ch.writeInbound(Unpooled.buffer().writeInt(Preface.MAGIC).writeShort(2));
        assertThat(recorder.seen).containsExactly(new PrefaceEvent(2));
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void tlsClientHelloFailsOnTheFirstByte() {
        assertFailsOnFirstChunk(new byte[] {0x16},
                "peer did not send the tunnel preface (got 0x16: a TLS handshake: TLS is enabled on the peer but not here)");
        assertFailsOnFirstChunk(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01},
                "peer did not send the tunnel preface (got 0x160301020001: a TLS handshake: TLS is enabled on the peer but not here)");
    }

    @Test
    void httpRequestIsNamedAsText() {
        assertFailsOnFirstChunk(ascii("G"),
                "peer did not send the tunnel preface (got 0x47: text, perhaps HTTP: the peer is not a tunnel endpoint)");
        assertFailsOnFirstChunk(ascii("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
                "peer did not send the tunnel preface (got 0x474554202f20485454502f312e310d0a: "
                        + "text, perhaps HTTP: the peer is not a tunnel endpoint)");
    }

    @Test
    void sshBannerIsNamed() {
        assertFailsOnFirstChunk(ascii("SSH-2.0-OpenSSH_9.6\r\n"),
                "peer did not send the tunnel preface (got 0x5353482d322e302d4f70656e5353485f: "
                        + "an SSH banner: the port belongs to an SSH server)");
    }

    @Test
    void binaryGarbageGetsTheGenericHint() {
        assertFailsOnFirstChunk(new byte[] {0x00, 0x01},
                "peer did not send the tunnel preface (got 0x0001: not the tunnel protocol: "
                        + "check the address, the port and that TLS is on or off on both sides)");
    }

    /** A wrong byte is caught as soon as it arrives, without waiting for the rest of the preface. */
    @Test
    void wrongMagicFailsAtTheFirstWrongByte() {
        EmbeddedChannel ch = new EmbeddedChannel(new PrefaceDecoder());
        assertThat(ch.writeInbound(Unpooled.wrappedBuffer(ascii("T")))).isFalse();
        assertThat(ch.writeInbound(Unpooled.wrappedBuffer(ascii("U")))).isFalse();
        assertThatThrownBy(() -> ch.writeInbound(Unpooled.wrappedBuffer(ascii("X"))))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("peer did not send the tunnel preface (got 0x545558: text, perhaps HTTP: the peer is not a tunnel endpoint)");
        // the failure is raised once: closing does not raise it again
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    private static void assertFailsOnFirstChunk(byte[] bytes, String message) {
        EmbeddedChannel ch = new EmbeddedChannel(new PrefaceDecoder());
        assertThatThrownBy(() -> ch.writeInbound(Unpooled.wrappedBuffer(bytes)))
                .isInstanceOf(ProtocolException.class)
                .hasMessage(message);
        assertThat(ch.pipeline().get(PrefaceDecoder.class)).isNotNull();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
