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
 * Two MuxSessions with an express and a bulk lane each, on EmbeddedChannels with the real codec:
 * which lane a stream's frames take, that every stream's bytes arrive in order however the two
 * lanes interleave, what waits for a lane marker and for how long, and that the session lives
 * and dies with both lanes.
 */
@Timeout(60)
class MuxLanesTest {
    private static final int WINDOW = 16 * 1024;
    private static final MuxSettings FIXED = new MuxSettings(WINDOW, WINDOW);

    private MuxPair pair;
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
            assertThat(download.stream.sendLane).as("the download went bulk").isEqualTo(LaneOrder.BULK);
            assertThat(accepted.get(0).stream.sendLane).as("the upload went bulk").isEqualTo(LaneOrder.BULK);
            assertThat(chat.stream.sendLane).as("the chat stayed on the express lane").isEqualTo(LaneOrder.EXPRESS);
            assertThat(pair.clientBulkFrames).contains("DataFrame")
                    .doesNotContain("OpenFrame", "WindowUpdateFrame", "ResetFrame");
            assertThat(pair.serverBulkFrames).contains("DataFrame")
                    .doesNotContain("OpenFrame", "WindowUpdateFrame", "ResetFrame");
            assertThat(pair.clientExpressFrames).contains("OpenFrame", "LaneFrame");
            assertThat(pair.serverExpressFrames).contains("WindowUpdateFrame", "LaneFrame");
            assertThat(pair.server.laneMoves()).isEqualTo(1);
            assertThat(pair.client.laneMoves()).isEqualTo(1);
            pair.close();
            pair = null;
        }
    }

    @Test
    void resetAndFinFollowTheirStreamsLanes() {
        lanes(MuxSettings.defaults());
        RecordingHandler download = pair.openFromServer().autoConsume();
        RecordingHandler doomed = pair.openFromServer().autoConsume();
        byte[] bulk = random(300_000, 1);
        download.stream.write(Unpooled.wrappedBuffer(bulk));
        download.stream.shutdownOutput();
        pair.shuttle(new Random(1));
        assertThat(download.stream.sendLane).isEqualTo(LaneOrder.BULK);
        assertSame("download", accepted.get(0).received(), bulk);
        assertThat(accepted.get(0).fins).as("FIN arrived behind the bulk lane's bytes").isEqualTo(1);
        doomed.stream.reset(ResetCode.CANCEL);
        pair.shuttle(new Random(2));
        assertThat(accepted.get(1).resets).containsExactly(ResetCode.CANCEL);
        assertThat(pair.clientExpressFrames).contains("ResetFrame");
    }

    @Test
    void aStreamThatWentQuietComesBackToTheExpressLaneInOrder() throws InterruptedException {
        for (int seed = 0; seed < 8; seed++) {
            accepted.clear();
            lanes(MuxSettings.defaults());
            pair.server.expressAgainNanos = TimeUnit.MILLISECONDS.toNanos(1);
            Random random = new Random(seed);
            RecordingHandler shell = pair.openFromServer().autoConsume();
            byte[] burst = random(200_000, seed);
            shell.stream.write(Unpooled.wrappedBuffer(burst));
            assertThat(shell.stream.sendLane).as("no bulk lane before the peer has seen OPEN")
                    .isEqualTo(LaneOrder.EXPRESS);
            // the burst has left (its lane marker back may still overtake it), then the stream goes quiet
            pair.shuttle(random);
            assertThat(shell.stream.sendLane).isEqualTo(LaneOrder.BULK);
            Thread.sleep(FrameScheduler.SPARSE_EPOCH_NANOS / 1_000_000 + 10);
            byte[] keys = "ls -l\n".getBytes(StandardCharsets.US_ASCII);
            shell.stream.write(Unpooled.wrappedBuffer(keys));
            assertThat(shell.stream.sendLane).as("seed %d", seed).isEqualTo(LaneOrder.EXPRESS);
            pair.shuttle(random);
            byte[] expected = new byte[burst.length + keys.length];
            System.arraycopy(burst, 0, expected, 0, burst.length);
            System.arraycopy(keys, 0, expected, burst.length, keys.length);
            assertSame("seed " + seed, accepted.get(0).received(), expected);
            assertThat(pair.server.laneMoves()).isEqualTo(2);
            pair.close();
            pair = null;
        }
    }

    @Test
    void dataAheadOfItsMarkerWaitsForIt() {
        lanes(FIXED);
        RecordingHandler sender = pair.openFromServer();
        pair.shuttle();
        RecordingHandler receiver = accepted.get(0);
        int id = sender.stream.id();
        pair.clientBulk.writeInbound(encode(data(id, "late")));
        assertThat(receiver.receivedBytes()).isZero();
        pair.clientChannel.writeInbound(encode(data(id, "early "), new LaneFrame(id)));
        assertThat(new String(receiver.received(), StandardCharsets.US_ASCII)).isEqualTo("early late");
        assertThat(receiver.resets).isEmpty();
    }

    @Test
    void moreAheadOfTheMarkerThanTheStreamsWindowResetsTheStream() {
        lanes(FIXED);
        RecordingHandler sender = pair.openFromServer();
        pair.shuttle();
        RecordingHandler receiver = accepted.get(0);
        int id = sender.stream.id();
        for (int i = 0; i < 4 && receiver.resets.isEmpty(); i++) {
            pair.clientBulk.writeInbound(encode(new DataFrame(id, Unpooled.wrappedBuffer(new byte[WINDOW]), false)));
        }
        assertThat(receiver.resets).containsExactly(ResetCode.FLOW_CONTROL_ERROR);
        assertThat(receiver.receivedBytes()).isZero();
        pair.shuttle();
        assertThat(sender.resets).containsExactly(ResetCode.FLOW_CONTROL_ERROR);
        assertThat(pair.clientChannel.isActive()).as("the session goes on").isTrue();
    }

    @Test
    void framesWaitingForAMarkerThatNeverComesResetTheirStream() {
        lanes(FIXED);
        pair.client.laneMarkerTimeoutMillis = 100;
        pair.clientChannel.freezeTime();
        RecordingHandler sender = pair.openFromServer();
        pair.shuttle();
        RecordingHandler receiver = accepted.get(0);
        pair.clientBulk.writeInbound(encode(data(sender.stream.id(), "stranded")));
        pair.clientChannel.advanceTimeBy(99, TimeUnit.MILLISECONDS);
        pair.clientChannel.runScheduledPendingTasks();
        assertThat(receiver.resets).isEmpty();
        pair.clientChannel.advanceTimeBy(2, TimeUnit.MILLISECONDS);
        pair.clientChannel.runScheduledPendingTasks();
        assertThat(receiver.resets).containsExactly(ResetCode.PROTOCOL_ERROR);
        assertThat(receiver.receivedBytes()).isZero();
        pair.shuttle();
        assertThat(sender.resets).containsExactly(ResetCode.PROTOCOL_ERROR);
    }

    @Test
    void losingTheBulkLaneEndsTheSessionOnBothSides() {
        lanes(MuxSettings.defaults());
        RecordingHandler stream = pair.openFromServer();
        pair.shuttle();
        pair.clientBulk.close();
        pair.clientChannel.runPendingTasks();
        assertThat(pair.clientChannel.isActive()).isFalse();
        assertThat(accepted.get(0).resets).containsExactly(ResetCode.SESSION_CLOSED);
        // the server's lane is the peer of the one that closed: its end closes too
        pair.serverBulk.close();
        pair.serverChannel.runPendingTasks();
        assertThat(pair.serverChannel.isActive()).isFalse();
        assertThat(stream.resets).containsExactly(ResetCode.SESSION_CLOSED);
    }

    @Test
    void closingTheSessionClosesItsBulkLane() {
        lanes(MuxSettings.defaults());
        pair.server.close("test", true);
        assertThat(pair.serverBulk.isActive()).isFalse();
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
        EmbeddedChannel second = new EmbeddedChannel(new BulkLane(pair.server, 90));
        pair.server.attachBulkLane(second);
        assertThat(second.isActive()).isFalse();
        assertThat(pair.serverBulk.isActive()).isTrue();
        second.finishAndReleaseAll();
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
        assertThat(download.stream.sendLane).isEqualTo(LaneOrder.EXPRESS);
        assertThat(pair.server.laneMoves()).isZero();
    }

    @Test
    void aLaneMarkerFromAPeerWithoutTheLaneIsAProtocolError() {
        pair = new MuxPair(MuxSettings.defaults(), MuxSettings.defaults());
        RecordingHandler stream = pair.openFromServer();
        pair.shuttle();
        assertThatThrownBy(() -> pair.clientChannel.writeInbound(encode(new LaneFrame(stream.stream.id()))))
                .hasMessageContaining("lane marker");
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
