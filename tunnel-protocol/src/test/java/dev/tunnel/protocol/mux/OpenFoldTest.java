package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.ResetCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * OPEN and the first bytes in one frame (capability {@code mux.openData}): what the opener puts
 * on the wire, read from its channel's outbound bytes, and what the peer's streams see.
 */
@Timeout(20)
class OpenFoldTest {
    private MuxPair pair;

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    private MuxPair folding() {
        pair = new MuxPair(MuxSettings.defaults(), MuxSettings.defaults());
        pair.server.foldOpens(true);
        pair.client.foldOpens(true);
        return pair;
    }

    @Test
    void theFirstBytesTravelInTheOpenFrame() {
        folding();
        RecordingHandler sender = pair.openFromServer().autoConsume();
        sender.stream.write(ascii("GET / HTTP/1.1\r\n\r\n"));

        assertThat(wire()).containsExactly("OPEN+DATA 1 (18 bytes)", "WINDOW_UPDATE 1");
        RecordingHandler receiver = pair.acceptedByClient.get(0).autoConsume();
        assertThat(receiver.proxyId).isEqualTo(1);
        assertThat(receiver.source).isEqualTo("203.0.113.7:40000");
        assertThat(new String(receiver.received(), StandardCharsets.US_ASCII)).isEqualTo("GET / HTTP/1.1\r\n\r\n");

        receiver.stream.write(ascii("HTTP/1.1 200 OK\r\n\r\n"));
        pair.shuttle();
        assertThat(sender.receivedBytes()).isEqualTo(19);
        assertThat(sender.resets).isEmpty();
        assertThat(receiver.resets).isEmpty();
    }

    /** The app may speak first (SSH, SMTP, MySQL): a stream with no bytes gets its OPEN on the next turn. */
    @Test
    void anOpenWithNoBytesLeavesAloneOnTheNextTurn() {
        folding();
        RecordingHandler sender = pair.openFromServer();
        assertThat(wire()).containsExactly("OPEN 1", "WINDOW_UPDATE 1");
        RecordingHandler receiver = pair.acceptedByClient.get(0).autoConsume();
        receiver.stream.write(ascii("SSH-2.0-banner\r\n"));
        pair.shuttle();
        assertThat(new String(sender.received(), StandardCharsets.US_ASCII)).isEqualTo("SSH-2.0-banner\r\n");

        sender.stream.write(ascii("SSH-2.0-client\r\n"));
        assertThat(wire()).containsExactly("DATA 1 (16 bytes)");
        assertThat(new String(receiver.received(), StandardCharsets.US_ASCII)).isEqualTo("SSH-2.0-client\r\n");
    }

    /** The peer refuses an OPEN whose id is not above the last one: earlier waiting OPENs go first. */
    @Test
    void opensLeaveInIdOrderWhenALaterStreamSendsFirst() {
        folding();
        RecordingHandler first = pair.openFromServer();
        RecordingHandler second = pair.openFromServer();
        second.stream.write(ascii("hello"));

        assertThat(wire()).containsExactly("OPEN 1", "WINDOW_UPDATE 1", "OPEN+DATA 3 (5 bytes)", "WINDOW_UPDATE 3");
        assertThat(pair.acceptedByClient).extracting(h -> h.stream.id()).containsExactly(1, 3);
        assertThat(pair.acceptedByClient.get(1).received()).isEqualTo(bytes("hello"));
        first.stream.write(ascii("late"));
        assertThat(wire()).containsExactly("DATA 1 (4 bytes)");
        assertThat(pair.acceptedByClient.get(0).received()).isEqualTo(bytes("late"));
    }

    /** A public connection that closed at once: its stream never reaches the peer. */
    @Test
    void aStreamResetBeforeItsOpenLeftSendsNothing() {
        folding();
        RecordingHandler gone = pair.openFromServer();
        gone.stream.reset(ResetCode.CANCEL);
        assertThat(wire()).isEmpty();

        RecordingHandler next = pair.openFromServer();
        next.stream.write(ascii("x"));
        assertThat(wire()).containsExactly("OPEN+DATA 3 (1 bytes)", "WINDOW_UPDATE 3");
        assertThat(pair.acceptedByClient).extracting(h -> h.stream.id()).containsExactly(3);
        assertThat(pair.serverChannel.isActive()).isTrue();
        assertThat(pair.clientChannel.isActive()).isTrue();
    }

    @Test
    void aPeerWithoutTheCapabilityGetsOpenThenData() {
        pair = new MuxPair(MuxSettings.defaults(), MuxSettings.defaults());
        RecordingHandler sender = pair.openFromServer();
        sender.stream.write(ascii("hello"));
        assertThat(wire()).containsExactly("OPEN 1", "WINDOW_UPDATE 1", "DATA 1 (5 bytes)");
        assertThat(pair.acceptedByClient.get(0).received()).isEqualTo(bytes("hello"));
    }

    @Test
    void firstBytesBeyondTheFoldGoAsDataBehindAPlainOpen() {
        folding();
        RecordingHandler sender = pair.openFromServer();
        byte[] big = new byte[dev.tunnel.protocol.DataFrame.MAX_IN_OPEN + 1];
        new java.util.Random(7).nextBytes(big);
        sender.stream.write(Unpooled.wrappedBuffer(big));
        assertThat(wire()).containsExactly("OPEN 1", "WINDOW_UPDATE 1", "DATA 1 (" + big.length + " bytes)");
        assertThat(pair.acceptedByClient.get(0).received()).isEqualTo(big);
    }

    /** Credit for a stream the peer does not know yet would be dropped there: its OPEN goes first. */
    @Test
    void creditGrantedBeforeTheFirstBytesFollowsTheOpen() {
        folding();
        RecordingHandler sender = pair.openFromServer();
        sender.stream.holdReceiveWindow(1 << 20);
        assertThat(wire()).containsExactly("OPEN 1", "WINDOW_UPDATE 1", "WINDOW_UPDATE 1");
        RecordingHandler receiver = pair.acceptedByClient.get(0);
        assertThat(receiver.stream.sendCredit()).isEqualTo(sender.stream.receiveWindow());
    }

    @Test
    void aHalfCloseBeforeAnyBytesIsAnOpenWithFin() {
        folding();
        RecordingHandler sender = pair.openFromServer();
        sender.stream.shutdownOutput();
        assertThat(wire()).containsExactly("OPEN+DATA+FIN 1 (0 bytes)", "WINDOW_UPDATE 1");
        assertThat(pair.acceptedByClient.get(0).fins).isEqualTo(1);
    }

    /** Runs the server's turn, describes the frames it wrote, and delivers them to the client. */
    private List<String> wire() {
        MuxPair.runTurn(pair.serverChannel);
        ByteBuf all = Unpooled.buffer();
        ByteBuf part;
        while ((part = pair.serverChannel.readOutbound()) != null) {
            all.writeBytes(part);
            part.release();
        }
        List<String> frames = new ArrayList<>();
        for (int i = all.readerIndex(); i < all.writerIndex(); ) {
            byte type = all.getByte(i);
            int flags = all.getByte(i + 1);
            int id = all.getInt(i + 2);
            int length = all.getInt(i + 6);
            frames.add(switch (type) {
                case Frame.TYPE_OPEN -> (flags & Frame.FLAG_DATA) == 0 ? "OPEN " + id
                        : "OPEN+DATA" + ((flags & Frame.FLAG_FIN) != 0 ? "+FIN " : " ") + id + " ("
                                + (length - 4 - 2 - all.getUnsignedShort(i + 14)) + " bytes)";
                case Frame.TYPE_DATA -> "DATA " + id + " (" + length + " bytes)";
                case Frame.TYPE_WINDOW_UPDATE -> "WINDOW_UPDATE " + id;
                default -> "type " + type + " " + id;
            });
            i += Frame.HEADER_LENGTH + length;
        }
        if (all.isReadable()) {
            pair.clientChannel.writeInbound(all);
        } else {
            all.release();
        }
        pair.shuttle();
        return frames;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }
}
