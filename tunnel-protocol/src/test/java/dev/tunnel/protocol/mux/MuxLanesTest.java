package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.LaneFrame;
import dev.tunnel.protocol.ResetCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two MuxSessions with an express and a bulk lane each (the bulk lane run by its own bulk owner),
 * on EmbeddedChannels with the real codec: which streams move to the bulk owner and when, that
 * every stream's bytes arrive in order however the two lanes interleave and however long a move
 * takes, what waits for a move or a lane marker and for how long, resets, failures and closes in
 * the middle of a move, and that the session lives and dies with both lanes.
 */
@Timeout(60)
class MuxLanesTest {
    private static final int WINDOW = 16 * 1024;
    private static final MuxSettings FIXED = new MuxSettings(WINDOW, WINDOW);

    private MuxPair pair;
    /** The server's side of the stream {@link #askedToMove} opened. */
    private RecordingHandler sender;
    private final List<RecordingHandler> accepted = new ArrayList<>();

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    private MuxPair lanes(MuxSettings settings) {
        pair = new MuxPair(settings, settings).withLanes();
        pair.clientAcceptor = (stream, proxyId, source) ->
                accepted.add(new RecordingHandler(stream, proxyId, source).autoConsume());
        return pair;
    }

    @Test
    void aTransferMovesToTheBulkLaneAndEveryStreamArrivesWholeUnderAnyInterleaving() {
        for (int seed = 0; seed < 12; seed++) {
            accepted.clear();
            lanes(MuxSettings.defaults());
            Random random = new Random(seed);
            RecordingHandler download = pair.openFromServer().autoConsume();
            RecordingHandler chat = pair.openFromServer().autoConsume();
            byte[] bulk = random(1_500_000, seed);
            byte[] upload = random(400_000, seed + 100);
            byte[] lines = random(3000, seed + 200);
            int sentBulk = 0;
            int sentUpload = 0;
            int sentLines = 0;
            while (sentBulk < bulk.length || sentLines < lines.length || sentUpload < upload.length) {
                int n = Math.min(bulk.length - sentBulk, 1 + random.nextInt(60_000));
                download.stream.write(Unpooled.wrappedBuffer(bulk, sentBulk, n));
                sentBulk += n;
                if (sentLines < lines.length) {
                    int m = Math.min(lines.length - sentLines, 1 + random.nextInt(200));
                    chat.stream.write(Unpooled.wrappedBuffer(lines, sentLines, m));
                    sentLines += m;
                }
                if (sentUpload < upload.length && accepted.size() == 2) {
                    int u = Math.min(upload.length - sentUpload, 1 + random.nextInt(50_000));
                    accepted.get(0).stream.write(Unpooled.wrappedBuffer(upload, sentUpload, u));
                    sentUpload += u;
                }
                pair.shuttle(random);
            }
            pair.shuttle(random);

            assertThat(accepted).hasSize(2);
            assertSame("seed " + seed + ": download", accepted.get(0).received(), bulk);
            assertSame("seed " + seed + ": chat", accepted.get(1).received(), lines);
            assertSame("seed " + seed + ": upload", download.received(), upload);
            assertThat(download.stream.session()).as("the download moved").isSameAs(pair.serverBulkOwner);
            assertThat(accepted.get(0).stream.session()).as("its peer moved").isSameAs(pair.clientBulkOwner);
            assertThat(chat.stream.session()).as("the chat stayed").isSameAs(pair.server);
            assertThat(accepted.get(1).stream.session()).isSameAs(pair.client);
            assertThat(pair.clientBulkFrames).contains("DataFrame").doesNotContain("OpenFrame", "LaneFrame");
            assertThat(pair.serverBulkFrames).contains("DataFrame", "WindowUpdateFrame")
                    .doesNotContain("OpenFrame", "LaneFrame");
            assertThat(pair.clientExpressFrames).contains("OpenFrame", "LaneFrame");
            assertThat(pair.serverExpressFrames).contains("WindowUpdateFrame", "LaneFrame");
            assertThat(pair.server.laneMoves()).isEqualTo(1);
            assertThat(pair.client.laneMoves()).isEqualTo(1);

            download.stream.shutdownOutput();
            accepted.get(0).stream.shutdownOutput();
            chat.stream.reset(ResetCode.CANCEL);
            pair.shuttle(random);
            assertThat(pair.server.streamCount()).as("seed %d", seed).isZero();
            assertThat(pair.client.streamCount()).isZero();
            assertThat(pair.server.committedWindow()).as("every window given back").isZero();
            assertThat(pair.client.committedWindow()).isZero();
            pair.close();
            pair = null;
        }
    }

    @Test
    void finAndResetOfAMovedStreamGoOnTheBulkLane() {
        lanes(MuxSettings.defaults());
        RecordingHandler download = pair.openFromServer().autoConsume();
        RecordingHandler doomed = pair.openFromServer().autoConsume();
        byte[] bulk = random(300_000, 1);
        download.stream.write(Unpooled.wrappedBuffer(bulk));
        download.stream.shutdownOutput();
        pair.shuttle(new Random(1));
        assertThat(download.stream.session()).isSameAs(pair.serverBulkOwner);
        assertSame("download", accepted.get(0).received(), bulk);
        assertThat(accepted.get(0).fins).as("FIN arrived behind the bulk lane's bytes").isEqualTo(1);
        doomed.stream.reset(ResetCode.CANCEL);
        pair.shuttle(new Random(2));
        assertThat(accepted.get(1).resets).containsExactly(ResetCode.CANCEL);
        assertThat(pair.clientExpressFrames).contains("ResetFrame");
        accepted.get(0).stream.reset(ResetCode.CANCEL);
        pair.shuttle(new Random(3));
        assertThat(download.resets).containsExactly(ResetCode.CANCEL);
        assertThat(pair.serverBulkFrames).contains("ResetFrame");
        assertThat(pair.server.streamCount()).isZero();
        assertThat(pair.client.streamCount()).isZero();
    }

    @Test
    void aMovedStreamStaysOnTheBulkLane() throws InterruptedException {
        lanes(MuxSettings.defaults());
        RecordingHandler shell = pair.openFromServer().autoConsume();
        byte[] burst = random(200_000, 4);
        shell.stream.write(Unpooled.wrappedBuffer(burst));
        assertThat(shell.stream.session()).as("no move before the peer has seen OPEN").isSameAs(pair.server);
        pair.shuttle(new Random(4));
        assertThat(shell.stream.session()).isSameAs(pair.serverBulkOwner);
        Thread.sleep(FrameScheduler.SPARSE_EPOCH_NANOS / 1_000_000 + 10);
        int bulkFrames = pair.clientBulkFrames.size();
        shell.stream.write(Unpooled.wrappedBuffer("ls -l\n".getBytes(StandardCharsets.US_ASCII)));
        pair.shuttle(new Random(5));
        assertThat(pair.clientBulkFrames.subList(bulkFrames, pair.clientBulkFrames.size())).contains("DataFrame");
        assertThat(accepted.get(0).receivedBytes()).isEqualTo(burst.length + 6);
        assertThat(pair.server.laneMoves()).isEqualTo(1);
    }

    @Test
    void aRequestIsAnsweredWithAMarkerAndTheStreamMovesWithItsSocket() {
        int id = askedToMove(false);
        RecordingHandler receiver = accepted.get(0);
        assertThat(receiver.moves).isEqualTo(1);
        assertThat(receiver.stream.session()).isSameAs(pair.clientBulkOwner);
        ByteBuf marker = pair.clientChannel.readOutbound();
        assertThat(marker.getByte(0)).isEqualTo(Frame.TYPE_LANE);
        assertThat(marker.getByte(1)).as("a marker, not a request").isZero();
        marker.release();
        assertThat(pair.clientChannel.<ByteBuf>readOutbound()).isNull();
        // a second request for a stream that moved changes nothing
        pair.clientChannel.writeInbound(encode(new LaneFrame(id, true)));
        assertThat(receiver.moves).isEqualTo(1);
    }

    @Test
    void dataAheadOfItsMarkerWaitsForIt() {
        int id = askedToMove(false);
        RecordingHandler receiver = accepted.get(0);
        pair.clientBulk.writeInbound(encode(data(id, "late")));
        assertThat(receiver.receivedBytes()).isZero();
        pair.clientChannel.writeInbound(encode(data(id, "early "), new LaneFrame(id)));
        pair.clientBulk.runPendingTasks(); // the express owner hands them to the bulk owner's loop
        assertThat(new String(receiver.received(), StandardCharsets.US_ASCII)).isEqualTo("early late");
        assertThat(receiver.resets).isEmpty();
    }

    @Test
    void framesOfAStreamInTransitWaitForItToLandAndArriveInOrder() {
        int id = askedToMove(true);
        RecordingHandler receiver = accepted.get(0);
        assertThat(receiver.inTransit()).isTrue();
        receiver.stream.write(Unpooled.copiedBuffer("read before the move", StandardCharsets.US_ASCII));
        pair.clientChannel.writeInbound(encode(data(id, "one ")));
        pair.clientBulk.writeInbound(encode(data(id, "three")));
        pair.clientChannel.writeInbound(encode(data(id, "two "), new LaneFrame(id)));
        assertThat(receiver.receivedBytes()).isZero();
        receiver.land(null);
        assertThat(new String(receiver.received(), StandardCharsets.US_ASCII)).isEqualTo("one two three");
        pair.shuttle();
        assertThat(new String(sender.received(), StandardCharsets.US_ASCII)).isEqualTo("read before the move");
        assertThat(pair.serverBulkFrames).as("what it read meanwhile leaves on the bulk lane").contains("DataFrame");
    }

    @Test
    void aStreamResetInTransitSendsItsResetOnceItLands() {
        RecordingHandler download = downloadWhosePeerIsInTransit(6);
        RecordingHandler receiver = accepted.get(0);
        assertThat(receiver.inTransit()).isTrue();
        receiver.stream.reset(ResetCode.CANCEL);
        pair.shuttle();
        assertThat(download.resets).as("nothing leaves before it lands").isEmpty();
        receiver.land(null);
        pair.shuttle();
        assertThat(download.resets).containsExactly(ResetCode.CANCEL);
        assertThat(pair.serverBulkFrames).contains("ResetFrame");
        assertThat(pair.server.streamCount()).isZero();
        assertThat(pair.client.streamCount()).isZero();
        assertThat(pair.client.committedWindow()).isZero();
    }

    @Test
    void aMoveThatFailsResetsTheStream() {
        RecordingHandler download = downloadWhosePeerIsInTransit(7);
        accepted.get(0).land(new java.io.IOException("register failed"));
        pair.shuttle();
        assertThat(download.resets).containsExactly(ResetCode.CANCEL);
        assertThat(pair.client.streamCount()).isZero();
        assertThat(pair.server.streamCount()).isZero();
    }

    @Test
    void theSessionClosingWhileAStreamIsInTransitEndsItWhenItLands() {
        RecordingHandler download = downloadWhosePeerIsInTransit(8);
        RecordingHandler receiver = accepted.get(0);
        int before = receiver.receivedBytes();
        pair.clientChannel.writeInbound(encode(data(receiver.stream.id(), "waits in the hand-off")));
        pair.client.close("test", true);
        pair.clientChannel.runPendingTasks();
        pair.clientBulk.runPendingTasks();
        assertThat(pair.clientBulk.isActive()).as("the bulk lane closes with the session").isFalse();
        receiver.land(null);
        assertThat(receiver.resets).containsExactly(ResetCode.SESSION_CLOSED);
        assertThat(receiver.receivedBytes()).as("what waited in the hand-off is dropped").isEqualTo(before);
        assertThat(pair.client.streamCount()).isZero();
        assertThat(pair.client.committedWindow()).isZero();
    }

    @Test
    void losingTheBulkLaneMidMoveEndsTheSessionAndTheMovingStream() {
        RecordingHandler download = downloadWhosePeerIsInTransit(9);
        breakLane(pair.clientBulk);
        pair.clientChannel.runPendingTasks();
        assertThat(pair.clientChannel.isActive()).isFalse();
        accepted.get(0).land(null);
        assertThat(accepted.get(0).resets).containsExactly(ResetCode.SESSION_CLOSED);
        assertThat(pair.client.streamCount()).isZero();
    }

    @Test
    void moreThanItsCreditWhileAStreamIsInTransitResetsItWhenItLands() {
        int id = askedToMove(true);
        RecordingHandler receiver = accepted.get(0);
        for (int i = 0; i < 2 * MuxSettings.defaults().maxWindow() / WINDOW + 4; i++) {
            pair.clientBulk.writeInbound(encode(new DataFrame(id, Unpooled.wrappedBuffer(new byte[WINDOW]), false)));
        }
        receiver.land(null);
        assertThat(receiver.resets).containsExactly(ResetCode.FLOW_CONTROL_ERROR);
        assertThat(receiver.receivedBytes()).isZero();
        assertThat(pair.clientChannel.isActive()).as("the session goes on").isTrue();
    }

    @Test
    void moreAheadOfTheMarkerThanTheStreamsWindowResetsTheStream() {
        int id = askedToMove(false);
        RecordingHandler receiver = accepted.get(0);
        for (int i = 0; i < 4 && receiver.resets.isEmpty(); i++) {
            pair.clientBulk.writeInbound(encode(new DataFrame(id, Unpooled.wrappedBuffer(new byte[WINDOW]), false)));
        }
        assertThat(receiver.resets).containsExactly(ResetCode.FLOW_CONTROL_ERROR);
        assertThat(receiver.receivedBytes()).isZero();
        pair.shuttle();
        assertThat(pair.serverBulkFrames).as("the reset leaves on the bulk lane").contains("ResetFrame");
        assertThat(pair.clientChannel.isActive()).as("the session goes on").isTrue();
    }

    @Test
    void framesWaitingForAMarkerThatNeverComesResetTheirStream() {
        int id = askedToMove(false);
        RecordingHandler receiver = accepted.get(0);
        pair.clientBulkOwner.moves().markerTimeoutMillis = 100;
        pair.clientBulk.freezeTime();
        pair.clientBulk.writeInbound(encode(data(id, "stranded")));
        pair.clientBulk.advanceTimeBy(99, TimeUnit.MILLISECONDS);
        pair.clientBulk.runScheduledPendingTasks();
        assertThat(receiver.resets).isEmpty();
        pair.clientBulk.advanceTimeBy(2, TimeUnit.MILLISECONDS);
        pair.clientBulk.runScheduledPendingTasks();
        assertThat(receiver.resets).containsExactly(ResetCode.PROTOCOL_ERROR);
        assertThat(receiver.receivedBytes()).isZero();
    }

    @Test
    void aStreamWhoseHandlerCannotMoveStaysOnTheExpressLane() {
        lanes(MuxSettings.defaults());
        pair.clientAcceptor = (stream, proxyId, source) -> {
            RecordingHandler handler = new RecordingHandler(stream, proxyId, source).autoConsume();
            handler.movable = false;
            accepted.add(handler);
        };
        RecordingHandler download = pair.openFromServer().autoConsume();
        RecordingHandler pinned = pair.openFromServer().autoConsume();
        pinned.movable = false;
        byte[] bulk = random(600_000, 10);
        download.stream.write(Unpooled.wrappedBuffer(bulk));
        pinned.stream.write(Unpooled.wrappedBuffer(bulk));
        pair.shuttle();
        assertSame("asked, refused", accepted.get(0).received(), bulk);
        assertSame("never asked", accepted.get(1).received(), bulk);
        assertThat(download.stream.session()).isSameAs(pair.server);
        assertThat(pinned.stream.session()).isSameAs(pair.server);
        assertThat(pair.clientBulkFrames).doesNotContain("DataFrame");
        assertThat(pair.server.laneMoves()).isZero();
        assertThat(pair.client.laneMoves()).isZero();
    }

    @Test
    void aStreamThatAskedAndCannotMoveWhenTheMarkerComesStaysAndReadsThePeersBulkLane() {
        for (int seed = 0; seed < 6; seed++) {
            accepted.clear();
            lanes(MuxSettings.defaults());
            RecordingHandler download = pair.openFromServer().autoConsume();
            pair.shuttle();
            byte[] down = random(600_000, seed);
            download.stream.write(Unpooled.wrappedBuffer(down)); // turned bulk: the server asks to move
            download.movable = false; // and cannot by the time the client's marker comes
            pair.shuttle(new Random(seed));
            RecordingHandler upload = accepted.get(0);
            assertThat(upload.stream.session()).as("the client's side moved").isSameAs(pair.clientBulkOwner);
            assertThat(download.stream.session()).as("the server's side stayed").isSameAs(pair.server);
            byte[] up = random(400_000, seed + 100);
            upload.stream.write(Unpooled.wrappedBuffer(up));
            upload.stream.shutdownOutput();
            download.stream.shutdownOutput();
            pair.shuttle(new Random(seed + 100));
            assertSame("down, on the express lane", upload.received(), down);
            assertSame("up, on the bulk lane", download.received(), up);
            assertThat(download.resets).isEmpty();
            assertThat(upload.resets).isEmpty();
            assertThat(download.fins).isEqualTo(1);
            assertThat(upload.fins).isEqualTo(1);
            assertThat(pair.serverBulkFrames).contains("DataFrame");
            assertThat(pair.clientBulkFrames).doesNotContain("DataFrame");
            assertThat(pair.server.streamCount()).isZero();
            assertThat(pair.client.streamCount()).isZero();
            assertThat(pair.server.committedWindow()).isZero();
            pair.close();
            pair = null;
        }
    }

    @Test
    void aMarkerForAStreamThatNeverAskedAndCannotMoveResetsIt() {
        lanes(FIXED);
        pair.clientAcceptor = (stream, proxyId, source) -> {
            RecordingHandler handler = new RecordingHandler(stream, proxyId, source);
            handler.movable = false;
            accepted.add(handler);
        };
        sender = pair.openFromServer();
        pair.shuttle();
        pair.clientChannel.writeInbound(encode(new LaneFrame(sender.stream.id())));
        assertThat(accepted.get(0).resets).containsExactly(ResetCode.PROTOCOL_ERROR);
        assertThat(pair.clientChannel.isActive()).as("the session goes on").isTrue();
    }

    @Test
    void aBulkLaneThatFailsEndsTheSessionAtOnce() {
        lanes(MuxSettings.defaults());
        RecordingHandler stream = pair.openFromServer();
        pair.shuttle();
        breakLane(pair.clientBulk);
        pair.clientChannel.runPendingTasks();
        assertThat(pair.clientChannel.isActive()).isFalse();
        assertThat(accepted.get(0).resets).containsExactly(ResetCode.SESSION_CLOSED);
        breakLane(pair.serverBulk);
        pair.serverChannel.runPendingTasks();
        assertThat(pair.serverChannel.isActive()).isFalse();
        assertThat(stream.resets).containsExactly(ResetCode.SESSION_CLOSED);
    }

    @Test
    void aBulkLaneThePeerClosedLetsTheExpressLaneDeliverItsLastFramesBeforeTheSessionEnds() {
        lanes(MuxSettings.defaults());
        RecordingHandler stream = pair.openFromServer().autoConsume();
        pair.shuttle();
        RecordingHandler leaving = accepted.get(0);
        // the client leaves: its bulk lane's FIN is read first, its express lane's last frames after it
        pair.serverBulk.close();
        pair.serverChannel.runPendingTasks();
        assertThat(pair.serverChannel.isActive()).as("the session waits for its express lane").isTrue();
        leaving.stream.write(Unpooled.copiedBuffer("last words", StandardCharsets.US_ASCII));
        leaving.stream.shutdownOutput();
        pair.shuttle();
        assertThat(new String(stream.received(), StandardCharsets.US_ASCII)).isEqualTo("last words");
        assertThat(stream.fins).isEqualTo(1);
        assertThat(stream.resets).isEmpty();
    }

    @Test
    void aSessionWhoseExpressLaneOutlivesTheBulkLaneThePeerClosedEndsAfterTheGrace() {
        lanes(MuxSettings.defaults());
        RecordingHandler stream = pair.openFromServer();
        pair.shuttle();
        pair.serverChannel.freezeTime();
        pair.serverBulk.close();
        pair.serverChannel.runPendingTasks();
        pair.serverChannel.advanceTimeBy(MuxSession.BULK_CLOSE_GRACE_MILLIS - 1, TimeUnit.MILLISECONDS);
        pair.serverChannel.runScheduledPendingTasks();
        assertThat(pair.serverChannel.isActive()).isTrue();
        pair.serverChannel.advanceTimeBy(2, TimeUnit.MILLISECONDS);
        pair.serverChannel.runScheduledPendingTasks();
        assertThat(pair.serverChannel.isActive()).isFalse();
        assertThat(stream.resets).containsExactly(ResetCode.SESSION_CLOSED);
    }

    /** The lane's connection fails (a reset, as the kernel reports it). */
    private static void breakLane(io.netty.channel.embedded.EmbeddedChannel lane) {
        lane.pipeline().fireExceptionCaught(new java.io.IOException("Connection reset by peer"));
    }

    @Test
    void closingTheSessionClosesItsBulkLaneAndResetsTheStreamsOnIt() {
        lanes(MuxSettings.defaults());
        RecordingHandler download = pair.openFromServer().autoConsume();
        download.stream.write(Unpooled.wrappedBuffer(random(300_000, 11)));
        pair.shuttle();
        assertThat(download.stream.session()).isSameAs(pair.serverBulkOwner);
        pair.server.close("test", true);
        pair.serverBulk.runPendingTasks();
        assertThat(pair.serverBulk.isActive()).isFalse();
        assertThat(download.resets).containsExactly(ResetCode.SESSION_CLOSED);
        assertThat(pair.server.streamCount()).isZero();
        assertThat(pair.server.committedWindow()).isZero();
    }

    @Test
    void pingsCrossBothLanesAndEachIsAnsweredOnItsOwn() {
        lanes(MuxSettings.defaults());
        pair.server.ping();
        pair.shuttle();
        assertThat(pair.clientExpressFrames).containsExactly("Ping");
        assertThat(pair.clientBulkFrames).containsExactly("Ping");
        assertThat(pair.serverExpressFrames).containsExactly("Pong");
        assertThat(pair.serverBulkFrames).containsExactly("Pong");
        assertThat(pair.server.rttNanos()).isPositive();
    }

    @Test
    void aSecondBulkLaneIsRefused() {
        lanes(MuxSettings.defaults());
        MuxSession owner = pair.server.newBulkOwner();
        EmbeddedChannel second = new EmbeddedChannel(owner, new BulkLane(pair.server, 90));
        pair.server.attachBulkLane(second, owner);
        assertThat(second.isActive()).isFalse();
        assertThat(pair.serverBulk.isActive()).isTrue();
        second.finishAndReleaseAll();
    }

    @Test
    void anOpenOnTheBulkLaneIsAProtocolError() {
        lanes(MuxSettings.defaults());
        pair.serverBulk.writeInbound(encode(new dev.tunnel.protocol.OpenFrame(2, 1, "x")));
        assertThat(pair.serverBulk.isActive()).isFalse();
        pair.serverChannel.runPendingTasks();
        assertThat(pair.serverChannel.isActive()).as("the session ends with its lane").isFalse();
    }

    @Test
    void withoutABulkLaneEverythingStaysOnOneConnection() {
        pair = new MuxPair(MuxSettings.defaults(), MuxSettings.defaults());
        RecordingHandler download = pair.openFromServer();
        pair.shuttle();
        pair.acceptedByClient.get(0).autoConsume();
        byte[] bulk = random(600_000, 3);
        download.stream.write(Unpooled.wrappedBuffer(bulk));
        pair.shuttle();
        assertSame("download", pair.acceptedByClient.get(0).received(), bulk);
        assertThat(download.stream.session()).isSameAs(pair.server);
        assertThat(pair.server.laneMoves()).isZero();
    }

    @Test
    void aLaneFrameFromAPeerWithoutTheLaneIsAProtocolError() {
        pair = new MuxPair(MuxSettings.defaults(), MuxSettings.defaults());
        RecordingHandler stream = pair.openFromServer();
        pair.shuttle();
        assertThatThrownBy(() -> pair.clientChannel.writeInbound(encode(new LaneFrame(stream.stream.id()))))
                .hasMessageContaining("lane frame");
    }

    /**
     * A stream from the server whose client side the (pretended) server asks to move: the client
     * side ({@code accepted.get(0)}) moves, or with {@code hold} is in transit, its move waiting
     * for {@link RecordingHandler#land}; the server side ({@link #sender}) does not move. Its id.
     */
    private int askedToMove(boolean hold) {
        lanes(FIXED);
        if (hold) {
            pair.clientAcceptor = (stream, proxyId, source) ->
                    accepted.add(new RecordingHandler(stream, proxyId, source).holdMoves());
        }
        sender = pair.openFromServer();
        pair.shuttle();
        int id = sender.stream.id();
        pair.clientChannel.writeInbound(encode(new LaneFrame(id, true)));
        return id;
    }

    /**
     * A download from the server that turned bulk: it moved, and its peer on the client is in
     * transit ({@code accepted.get(0)}, whose move waits for {@link RecordingHandler#land}).
     */
    private RecordingHandler downloadWhosePeerIsInTransit(long seed) {
        lanes(MuxSettings.defaults());
        pair.clientAcceptor = (stream, proxyId, source) ->
                accepted.add(new RecordingHandler(stream, proxyId, source).autoConsume().holdMoves());
        RecordingHandler download = pair.openFromServer().autoConsume();
        download.stream.write(Unpooled.wrappedBuffer(random(300_000, seed)));
        pair.shuttle();
        assertThat(accepted.get(0).inTransit()).as("the peer's move waits").isTrue();
        return download;
    }

    /** Same bytes, or where they first differ (not megabytes of both). */
    private static void assertSame(String what, byte[] actual, byte[] expected) {
        int common = Math.min(actual.length, expected.length);
        int first = java.util.Arrays.mismatch(actual, expected);
        assertThat(first).as("%s: %d bytes received of %d, first difference at %d", what, actual.length,
                expected.length, first).isEqualTo(-1);
        assertThat(common).isEqualTo(expected.length);
    }

    private static DataFrame data(int id, String text) {
        return new DataFrame(id, Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII), false);
    }

    private static ByteBuf encode(Frame... frames) {
        return dev.tunnel.protocol.testing.ControlWire.encode(frames);
    }

    private static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
