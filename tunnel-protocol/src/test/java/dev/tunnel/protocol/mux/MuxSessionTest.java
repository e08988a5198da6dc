package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.CloseProxy;
import dev.tunnel.protocol.ControlMessage.Pong;
import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.FrameDecoder;
import dev.tunnel.protocol.OpenFrame;
import dev.tunnel.protocol.ProtocolException;
import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.ResetFrame;
import dev.tunnel.protocol.WindowUpdateFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two MuxSessions back to back on EmbeddedChannels with the real codec: ordering, per-stream
 * credit, FIN/RESET, session close and protocol errors, as the streams' handlers see them.
 */
@Timeout(20)
class MuxSessionTest {
    private static final int WINDOW = 16 * 1024;
    /** No auto-tuning: initial == max. */
    private static final MuxSettings FIXED = new MuxSettings(WINDOW, WINDOW);

    private MuxPair pair;

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void openedStreamCarriesDataBothWaysInOrder() {
        pair = new MuxPair(MuxSettings.defaults(), MuxSettings.defaults());
        RecordingHandler serverSide = pair.openFromServer().autoConsume();
        byte[] up = random(300_000, 1);
        byte[] down = random(200_000, 2);
        writeInChunks(serverSide.stream, up, 7000);
        pair.shuttle();

        assertThat(pair.acceptedByClient).hasSize(1);
        RecordingHandler clientSide = pair.acceptedByClient.get(0).autoConsume();
        clientSide.consumeAll(); // what arrived before the handler switched to consuming as it reads
        assertThat(clientSide.stream.id()).isEqualTo(serverSide.stream.id()).isOdd();
        assertThat(clientSide.proxyId).isEqualTo(1);
        assertThat(clientSide.source).isEqualTo("203.0.113.7:40000");
        writeInChunks(clientSide.stream, down, 5000);
        pair.shuttle();

        assertSameBytes(clientSide.received(), up);
        assertSameBytes(serverSide.received(), down);
        assertThat(clientSide.chunkSizes).allSatisfy(n -> assertThat(n).isBetween(1, MuxStream.MAX_CHUNK));
        assertThat(serverSide.resets).isEmpty();
        assertThat(clientSide.resets).isEmpty();
    }

    @Test
    void clientOpenedStreamsUseEvenIds() {
        pair = new MuxPair(MuxSettings.defaults(), MuxSettings.defaults());
        RecordingHandler a = pair.openFromClient();
        RecordingHandler b = pair.openFromClient();
        pair.shuttle();
        assertThat(a.stream.id()).isEqualTo(2);
        assertThat(b.stream.id()).isEqualTo(4);
        assertThat(pair.acceptedByServer).extracting(h -> h.stream.id()).containsExactly(2, 4);
    }

    @Test
    void senderStopsAtThePeersWindowAndResumesOnlyWhenTheReceiverConsumes() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler sender = pair.openFromServer();
        byte[] payload = random(WINDOW + 512, 3);
        boolean writable = sender.stream.write(Unpooled.wrappedBuffer(payload));
        pair.shuttle();
        RecordingHandler receiver = pair.acceptedByClient.get(0);

        assertThat(writable).isFalse();
        assertThat(sender.stream.isWritable()).isFalse();
        assertThat(receiver.receivedBytes()).isEqualTo(WINDOW);

        // bytes taken off the stream but not consumed return no credit, however long we wait
        pair.shuttle();
        assertThat(receiver.receivedBytes()).isEqualTo(WINDOW);
        assertThat(pair.clientChannel.outboundMessages()).isEmpty();

        // just under a sixteenth of the window consumed: still no credit
        receiver.consume(WINDOW / 16 - 1);
        pair.shuttle();
        assertThat(receiver.receivedBytes()).isEqualTo(WINDOW);
        assertThat(sender.writables).isZero();

        // a sixteenth: credit goes back, the waiting 512 bytes leave, the sender may write again
        receiver.consume(1);
        pair.shuttle();
        assertThat(receiver.receivedBytes()).isEqualTo(WINDOW + 512);
        assertSameBytes(receiver.received(), payload);
        assertThat(sender.writables).isEqualTo(1);
        assertThat(sender.stream.isWritable()).isTrue();
    }

    @Test
    void aWindowStallCountsOncePerStallNotPerWrite() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler sender = pair.openFromServer();

        // exactly the window, nothing left waiting: no stall
        sender.stream.write(Unpooled.wrappedBuffer(random(WINDOW, 11)));
        pair.shuttle();
        RecordingHandler receiver = pair.acceptedByClient.get(0);
        assertThat(pair.server.windowStalls()).isZero();

        // bytes arrive with no credit: one stall, however many writes wait behind it
        for (int i = 0; i < 5; i++) {
            sender.stream.write(Unpooled.wrappedBuffer(random(1000, 12 + i)));
        }
        pair.shuttle();
        assertThat(pair.server.windowStalls()).isEqualTo(1);

        // credit comes back, the waiting bytes leave; a write larger than the credit stalls again
        receiver.consumeAll();
        pair.shuttle();
        assertThat(receiver.receivedBytes()).isEqualTo(WINDOW + 5000);
        assertThat(pair.server.windowStalls()).isEqualTo(1);
        receiver.consumeAll();
        pair.shuttle();
        sender.stream.write(Unpooled.wrappedBuffer(random(2 * WINDOW, 20)));
        pair.shuttle();
        assertThat(pair.server.windowStalls()).isEqualTo(2);
        assertThat(pair.client.windowStalls()).isZero();
    }

    @Test
    void exactlyTheWindowLeavesOnTheWire() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler sender = pair.openFromServer();
        sender.stream.write(Unpooled.wrappedBuffer(random(3 * WINDOW, 4)));
        pair.serverChannel.runPendingTasks();
        int dataBytes = 0;
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder());
        ByteBuf buf;
        while ((buf = pair.serverChannel.readOutbound()) != null) {
            decoder.writeInbound(buf);
        }
        Frame frame;
        while ((frame = decoder.readInbound()) != null) {
            if (frame instanceof DataFrame data) {
                dataBytes += data.content().readableBytes();
                data.release();
            }
        }
        decoder.finishAndReleaseAll();
        assertThat(dataBytes).isEqualTo(WINDOW);
    }

    @Test
    void stalledReceiverBlocksOnlyItsOwnStream() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler stalled = pair.openFromServer();
        RecordingHandler flowing = pair.openFromServer();
        stalled.stream.write(Unpooled.wrappedBuffer(random(2 * WINDOW, 5)));
        pair.shuttle();
        pair.acceptedByClient.get(1).autoConsume();

        byte[] big = random(20 * WINDOW, 6);
        int offset = 0;
        while (offset < big.length) {
            int n = Math.min(4096, big.length - offset);
            flowing.stream.write(Unpooled.wrappedBuffer(big, offset, n));
            offset += n;
            pair.shuttle();
        }

        assertSameBytes(pair.acceptedByClient.get(1).received(), big);
        assertThat(pair.acceptedByClient.get(0).receivedBytes()).isEqualTo(WINDOW);
        assertThat(stalled.stream.isWritable()).isFalse();
        assertThat(flowing.stream.isWritable()).isTrue();
    }

    @Test
    void finInBothDirectionsRemovesTheStream() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler serverSide = pair.openFromServer().autoConsume();
        serverSide.stream.write(Unpooled.wrappedBuffer(random(100, 7)));
        serverSide.stream.shutdownOutput();
        pair.shuttle();
        RecordingHandler clientSide = pair.acceptedByClient.get(0);
        assertThat(clientSide.events).containsExactly("data", "fin");
        assertThat(pair.server.streamCount()).isEqualTo(1);
        assertThat(pair.client.streamCount()).isEqualTo(1);

        // half-closed: the other direction still flows, and a write after our FIN is refused
        clientSide.stream.write(Unpooled.wrappedBuffer(random(50, 8)));
        assertThat(serverSide.stream.write(Unpooled.wrappedBuffer(new byte[1]))).isFalse();
        pair.shuttle();
        assertThat(serverSide.receivedBytes()).isEqualTo(50);

        clientSide.stream.shutdownOutput(); // nothing waiting: an empty DATA+FIN
        pair.shuttle();
        assertThat(serverSide.events).containsExactly("data", "fin");
        assertThat(pair.server.streamCount()).isZero();
        assertThat(pair.client.streamCount()).isZero();
        assertThat(serverSide.stream.isClosed()).isTrue();
        assertThat(clientSide.stream.isClosed()).isTrue();
        assertThat(serverSide.resets).isEmpty();
        assertThat(clientSide.resets).isEmpty();
    }

    @Test
    void finWaitsBehindBytesThatWaitForCredit() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler sender = pair.openFromServer();
        sender.stream.write(Unpooled.wrappedBuffer(random(WINDOW + 10, 9)));
        sender.stream.shutdownOutput();
        pair.shuttle();
        RecordingHandler receiver = pair.acceptedByClient.get(0);
        assertThat(receiver.fins).isZero();
        receiver.consumeAll();
        pair.shuttle();
        assertThat(receiver.receivedBytes()).isEqualTo(WINDOW + 10);
        assertThat(receiver.fins).isEqualTo(1);
        assertThat(receiver.events.get(receiver.events.size() - 1)).isEqualTo("fin");
    }

    @Test
    void resetFromTheServerReachesTheClientHandler() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler serverSide = pair.openFromServer();
        serverSide.stream.write(Unpooled.wrappedBuffer(random(2 * WINDOW, 10))); // some bytes wait
        pair.shuttle();
        serverSide.stream.reset(ResetCode.CANCEL);
        pair.shuttle();
        assertThat(pair.acceptedByClient.get(0).resets).containsExactly(ResetCode.CANCEL);
        assertThat(serverSide.resets).as("the side that resets is not told").isEmpty();
        assertThat(pair.server.streamCount()).isZero();
        assertThat(pair.client.streamCount()).isZero();
        assertThat(serverSide.stream.write(Unpooled.wrappedBuffer(new byte[10]))).isFalse();
    }

    @Test
    void resetFromTheClientReachesTheServerHandler() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler serverSide = pair.openFromServer();
        pair.shuttle();
        pair.acceptedByClient.get(0).stream.reset(ResetCode.CONNECT_FAILED);
        pair.shuttle();
        assertThat(serverSide.resets).containsExactly(ResetCode.CONNECT_FAILED);
        assertThat(pair.server.streamCount()).isZero();
        assertThat(pair.client.streamCount()).isZero();
    }

    @Test
    void peerExceedingItsCreditGetsFlowControlError() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler serverSide = pair.openFromServer();
        pair.shuttle();
        RecordingHandler clientSide = pair.acceptedByClient.get(0);
        int id = serverSide.stream.id();

        // a misbehaving server: one byte more than the client's window, straight onto the wire
        ByteBuf payload = Unpooled.wrappedBuffer(new byte[WINDOW + 1]);
        pair.clientChannel.writeInbound(new DataFrame(id, payload, false));
        assertThat(payload.refCnt()).isZero();
        assertThat(clientSide.resets).containsExactly(ResetCode.FLOW_CONTROL_ERROR);
        assertThat(clientSide.receivedBytes()).isZero();
        assertThat(pair.client.streamCount()).isZero();

        pair.shuttle();
        assertThat(serverSide.resets).containsExactly(ResetCode.FLOW_CONTROL_ERROR);
        assertThat(pair.server.streamCount()).isZero();
    }

    @Test
    void dataAfterFinIsAProtocolError() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler serverSide = pair.openFromServer();
        serverSide.stream.shutdownOutput();
        pair.shuttle();
        RecordingHandler clientSide = pair.acceptedByClient.get(0);
        ByteBuf late = Unpooled.wrappedBuffer(new byte[5]);
        pair.clientChannel.writeInbound(new DataFrame(serverSide.stream.id(), late, false));
        assertThat(late.refCnt()).isZero();
        assertThat(clientSide.resets).containsExactly(ResetCode.PROTOCOL_ERROR);
        pair.shuttle();
        assertThat(serverSide.resets).containsExactly(ResetCode.PROTOCOL_ERROR);
    }

    @Test
    void dataForAnUnknownStreamIsDroppedAndReleased() {
        pair = new MuxPair(FIXED, FIXED);
        ByteBuf payload = Unpooled.wrappedBuffer(new byte[100]);
        pair.clientChannel.writeInbound(new DataFrame(99, payload, true));
        assertThat(payload.refCnt()).isZero();
        assertThat((Object) pair.clientChannel.readInbound()).isNull();
        // and WINDOW_UPDATE / RESET for unknown streams are ignored, not errors
        pair.clientChannel.writeInbound(new WindowUpdateFrame(99, 10), new ResetFrame(99, ResetCode.CANCEL));
        pair.clientChannel.checkException();
        assertThat(pair.client.streamCount()).isZero();
    }

    @Test
    void sessionCloseResetsEveryOpenStream() {
        pair = new MuxPair(FIXED, FIXED);
        RecordingHandler a = pair.openFromServer();
        RecordingHandler b = pair.openFromServer();
        RecordingHandler c = pair.openFromServer();
        a.stream.write(Unpooled.wrappedBuffer(random(2 * WINDOW, 11))); // bytes waiting for credit
        pair.shuttle();
        assertThat(pair.client.streamCount()).isEqualTo(3);

        pair.serverChannel.close();
        for (RecordingHandler h : new RecordingHandler[] {a, b, c}) {
            assertThat(h.resets).containsExactly(ResetCode.SESSION_CLOSED);
            assertThat(h.stream.isClosed()).isTrue();
        }
        assertThat(pair.server.streamCount()).isZero();

        ByteBuf late = Unpooled.wrappedBuffer(new byte[10]);
        assertThat(b.stream.write(late)).isFalse();
        assertThat(late.refCnt()).isZero();

        pair.clientChannel.close();
        assertThat(pair.acceptedByClient).allSatisfy(h -> assertThat(h.resets).containsExactly(ResetCode.SESSION_CLOSED));
        assertThat(pair.client.streamCount()).isZero();
    }

    @Test
    void openWithWrongParityIsAProtocolError() {
        pair = new MuxPair(FIXED, FIXED);
        // the client only accepts odd ids from the server
        assertThatThrownBy(() -> pair.clientChannel.writeInbound(new OpenFrame(2, 1, "x")))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("peer opened stream 2 out of order (last 0)");
        assertThat(pair.client.streamCount()).isZero();
    }

    @Test
    void openOutOfOrderOrReusedIsAProtocolError() {
        pair = new MuxPair(FIXED, FIXED);
        pair.clientChannel.writeInbound(new OpenFrame(5, 1, "x"));
        assertThatThrownBy(() -> pair.clientChannel.writeInbound(new OpenFrame(3, 1, "x")))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("peer opened stream 3 out of order (last 5)");
        assertThatThrownBy(() -> pair.clientChannel.writeInbound(new OpenFrame(5, 1, "x")))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("peer opened stream 5 out of order (last 5)");
        assertThat(pair.client.streamCount()).isEqualTo(1);
    }

    @Test
    void streamFramesBeforeLoginAreAProtocolError() {
        MuxSession session = new MuxSession(false, FIXED, (s, p, src) -> { });
        EmbeddedChannel ch = new EmbeddedChannel(session);
        ByteBuf payload = Unpooled.wrappedBuffer(new byte[3]);
        assertThatThrownBy(() -> ch.writeInbound(new DataFrame(1, payload, false)))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("stream frame before login completed");
        assertThat(payload.refCnt()).isZero();
        ch.finishAndReleaseAll();
    }

    @Test
    void sessionWithoutAcceptorRefusesStreams() {
        pair = new MuxPair(FIXED, FIXED, false);
        RecordingHandler clientSide = pair.openFromClient();
        clientSide.stream.write(Unpooled.wrappedBuffer(random(1000, 12)));
        pair.shuttle();
        assertThat(clientSide.resets).containsExactly(ResetCode.REFUSED);
        assertThat(pair.server.streamCount()).isZero();
        assertThat(pair.client.streamCount()).isZero();
    }

    @Test
    void controlFramesOtherThanPingGoToTheNextHandler() {
        pair = new MuxPair(FIXED, FIXED);
        ControlFrame close = new ControlFrame(new CloseProxy(3, "web"));
        pair.client.channel().writeAndFlush(close);
        pair.shuttle();
        assertThat((Object) pair.serverChannel.readInbound()).isEqualTo(close);
    }

    @Test
    void pingIsAnsweredAndThePongSetsTheRtt() {
        pair = new MuxPair(FIXED, FIXED);
        assertThat(pair.server.rttNanos()).isZero();
        pair.server.ping();
        pair.shuttle();
        assertThat(pair.server.rttNanos()).isPositive();
        assertThat((Object) pair.serverChannel.readInbound()).isInstanceOf(ControlFrame.class);
        assertThat((Object) pair.clientChannel.readInbound()).as("the ping is answered, not passed on").isNull();
    }

    /** The guaranteed window is topped up to the start window by an update right behind OPEN. */
    @Test
    void newStreamsGetTheStartWindowWhileTheSessionBudgetHasRoom() {
        MuxSettings settings = new MuxSettings(WINDOW, 4 * WINDOW, 8 * WINDOW, 12 * WINDOW);
        pair = new MuxPair(settings, settings);
        RecordingHandler first = pair.openFromServer();
        pair.shuttle();
        assertThat(first.stream.receiveWindow()).isEqualTo(4 * WINDOW);
        assertThat(pair.acceptedByClient.get(0).stream.sendCredit()).isEqualTo(4 * WINDOW);

        // 12 windows of budget: each new stream holds its guaranteed window and grows into half of
        // what is uncommitted at most: the second still gets 3 more, the third (12 - 9) / 2
        RecordingHandler second = pair.openFromServer();
        RecordingHandler third = pair.openFromServer();
        pair.shuttle();
        assertThat(second.stream.receiveWindow()).isEqualTo(4 * WINDOW);
        assertThat(third.stream.receiveWindow()).isEqualTo(2 * WINDOW + WINDOW / 2);
        assertThat(pair.server.committedWindow()).isEqualTo(4 * WINDOW + 4 * WINDOW + 2 * WINDOW + WINDOW / 2);
        assertThat(pair.acceptedByClient.get(2).stream.sendCredit()).isEqualTo(2 * WINDOW + WINDOW / 2);
    }

    /** Streams that never drain keep only their windows; closing them gives the budget back. */
    @Test
    void closedStreamsGiveTheirWindowBack() {
        MuxSettings settings = new MuxSettings(WINDOW, 4 * WINDOW, 8 * WINDOW, 12 * WINDOW);
        pair = new MuxPair(settings, settings);
        long before = MemoryLimit.process().reserved();
        RecordingHandler a = pair.openFromServer();
        RecordingHandler b = pair.openFromServer();
        pair.shuttle();
        assertThat(pair.server.committedWindow()).isPositive();
        a.stream.reset(ResetCode.CANCEL);
        b.stream.reset(ResetCode.CANCEL);
        pair.shuttle();
        assertThat(pair.server.committedWindow()).isZero();
        assertThat(pair.client.committedWindow()).isZero();
        assertThat(MemoryLimit.process().reserved()).isEqualTo(before);
    }

    @Test
    void receiveWindowStaysPutWithoutAnRtt() {
        MuxSettings tuned = new MuxSettings(WINDOW, 8 * WINDOW);
        pair = new MuxPair(tuned, tuned);
        pair.serverChannel.freezeTime(); // no RTT probe falls due, however slow the machine
        pair.clientChannel.freezeTime();
        RecordingHandler sender = pair.openFromServer();
        pair.shuttle();
        RecordingHandler receiver = pair.acceptedByClient.get(0).autoConsume();
        writeInChunks(sender.stream, random(10 * WINDOW, 14), 4096);
        pair.shuttle();
        assertThat(receiver.receivedBytes()).isEqualTo(10 * WINDOW);
        assertThat(receiver.stream.receiveWindow()).isEqualTo(WINDOW);
    }

    /**
     * Above the connection's watermark a stream's bytes wait in the stream (not in the connection's
     * buffer); the stream is writable again once they left, whatever the connection's watermark.
     */
    @Test
    void bytesWaitInTheStreamWhileTheConnectionIsAboveItsWatermark() {
        pair = new MuxPair(FIXED, FIXED);
        pair.serverChannel.config().setWriteBufferWaterMark(new WriteBufferWaterMark(256, 512));
        RecordingHandler sender = pair.openFromServer();
        assertThat(sender.stream.write(Unpooled.wrappedBuffer(random(12_000, 15)))).isFalse();
        assertThat(pair.serverChannel.isWritable()).isFalse();
        assertThat(sender.writables).isZero();

        pair.shuttle(); // flushes drain the connection; the scheduler hands it the rest in turns
        pair.acceptedByClient.get(0).consumeAll();
        pair.shuttle();
        assertThat(pair.acceptedByClient.get(0).receivedBytes()).isEqualTo(12_000);
        assertThat(sender.writables).isEqualTo(1);
        assertThat(sender.stream.isWritable()).isTrue();
    }

    /**
     * What waits below the scheduler is bounded (the connection's 64 KiB write watermark, set at
     * start), so a keystroke written behind a 1 MiB download leaves behind at most that much of
     * it, not behind the megabyte: the rest of the download waits in its stream, where the
     * scheduler puts the sparse stream first.
     */
    @Test
    void aKeystrokeLeavesBehindAtMost64KiBOfADownloadWrittenBeforeIt() {
        MuxSettings roomy = new MuxSettings(4 << 20, 16 << 20); // credit is never what holds the download
        pair = new MuxPair(roomy, roomy);
        RecordingHandler download = pair.openFromServer();
        RecordingHandler keystroke = pair.openFromServer();
        pair.shuttle();
        RecordingHandler downloadIn = pair.acceptedByClient.get(0).autoConsume();
        RecordingHandler keystrokeIn = pair.acceptedByClient.get(1).autoConsume();

        download.stream.write(Unpooled.wrappedBuffer(random(1 << 20, 21)));
        keystroke.stream.write(Unpooled.wrappedBuffer(new byte[] {'k'}));
        MuxPair.runTurn(pair.serverChannel); // flushes: each time the connection drains, the scheduler picks again
        int downloadedFirst = -1;
        ByteBuf out;
        while ((out = pair.serverChannel.readOutbound()) != null) { // in the order they left, one at a time
            pair.clientChannel.writeInbound(out);
            if (downloadedFirst < 0 && keystrokeIn.receivedBytes() > 0) {
                downloadedFirst = downloadIn.receivedBytes();
            }
        }
        assertThat(downloadedFirst).as("download bytes that arrived before the keystroke")
                .isBetween(0, 64 * 1024 + 4096);
        pair.shuttle();
        assertThat(downloadIn.receivedBytes()).isEqualTo(1 << 20);
    }

    // ---- helpers ----

    /** Compares by length and SHA-256 so a mismatch reads as a short message, not a megabyte dump. */
    private static void assertSameBytes(byte[] actual, byte[] expected) {
        assertThat(actual.length).as("bytes received").isEqualTo(expected.length);
        assertThat(sha256(actual)).as("sha-256 of the bytes received").isEqualTo(sha256(expected));
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static void writeInChunks(MuxStream stream, byte[] bytes, int chunk) {
        for (int offset = 0; offset < bytes.length; offset += chunk) {
            stream.write(Unpooled.wrappedBuffer(bytes, offset, Math.min(chunk, bytes.length - offset)));
        }
    }

    private static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
