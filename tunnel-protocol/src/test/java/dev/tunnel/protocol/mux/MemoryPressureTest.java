package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Memory pressure lands on the streams that cause it: with direct memory over the mark (forced
 * through {@link MemoryLimit#forcedTight}), the streams holding many bytes get no more credit
 * and are not read, while the tunnel connection keeps being read and the other streams keep
 * exchanging; nothing is closed, and once the mark is cleared every byte is delivered.
 */
@Timeout(20)
class MemoryPressureTest {
    private MuxPair pair;

    @AfterEach
    void close() {
        MemoryLimit.forcedTight = false;
        if (pair != null) {
            pair.close();
        }
    }

    /** A reader that stopped reading under pressure does not stop another stream's request/response. */
    @Test
    void aStreamWhoseReaderStoppedIsSqueezedAndAnotherKeepsExchanging() throws Exception {
        pair = new MuxPair(MuxSettings.defaults(), MuxSettings.defaults());
        pair.serverChannel.freezeTime();
        pair.clientChannel.freezeTime();
        RecordingHandler slow = pair.openFromServer().autoConsume();
        RecordingHandler other = pair.openFromServer().autoConsume();
        write(slow.stream, random(1 << 20, 1));
        shuttle();
        RecordingHandler slowClient = pair.acceptedByClient.get(0); // its consumer never reads
        RecordingHandler otherClient = pair.acceptedByClient.get(1).autoConsume();
        int held = slowClient.unconsumed;
        assertThat(held).as("the slow reader holds its window").isGreaterThan(ReceiveWindow.SQUEEZED_WINDOW);

        MemoryLimit.forcedTight = true;
        write(slow.stream, random(64 * 1024, 2));
        for (int exchange = 0; exchange < 20; exchange++) {
            byte[] request = random(2000, 100 + exchange);
            byte[] response = random(30_000, 200 + exchange);
            int requested = otherClient.receivedBytes();
            int responded = other.receivedBytes();
            other.stream.write(Unpooled.wrappedBuffer(request));
            shuttle();
            assertThat(otherClient.receivedBytes() - requested).as("request %d arrived", exchange).isEqualTo(request.length);
            assertThat(otherClient.stream.isWritable()).as("the other stream's socket is read, exchange %d", exchange)
                    .isTrue();
            otherClient.stream.write(Unpooled.wrappedBuffer(response));
            shuttle();
            assertThat(other.receivedBytes() - responded).as("response %d arrived", exchange).isEqualTo(response.length);
        }
        assertThat(slowClient.unconsumed).as("the squeezed stream got no more credit").isEqualTo(held);
        assertThat(slowClient.stream.isWritable()).as("the squeezed stream's socket is not read").isFalse();
        assertThat(slow.stream.isWritable()).as("nor is the sender's, which holds bytes without credit").isFalse();
        assertThat(pair.client.streamCount()).isEqualTo(2);
        assertThat(slowClient.resets).isEmpty();
        assertThat(slow.resets).isEmpty();
    }

    /** A squeezed stream's window goes down to the squeezed size as its reader reads; after the pressure every byte arrives. */
    @Test
    void aSqueezedStreamShrinksAsItsReaderReadsAndIsReleasedWhenMemoryFrees() throws Exception {
        pair = new MuxPair(MuxSettings.defaults(), MuxSettings.defaults());
        pair.serverChannel.freezeTime();
        pair.clientChannel.freezeTime();
        RecordingHandler slow = pair.openFromServer();
        byte[] first = random(1 << 20, 1);
        write(slow.stream, first);
        shuttle();
        RecordingHandler slowClient = pair.acceptedByClient.get(0);

        MemoryLimit.forcedTight = true;
        for (int i = 0; i < 100 && slowClient.stream.receiveWindow() > ReceiveWindow.SQUEEZED_WINDOW; i++) {
            slowClient.consumeAll(); // credit until a read batch notices the pressure, then none
            shuttle();
        }
        assertThat(slowClient.stream.receiveWindow()).isEqualTo(ReceiveWindow.SQUEEZED_WINDOW);
        assertThat(pair.client.committedWindow()).isLessThanOrEqualTo(ReceiveWindow.SQUEEZED_WINDOW);

        MemoryLimit.forcedTight = false;
        pair.clientChannel.advanceTimeBy(StreamPressure.CHECK_MILLIS, TimeUnit.MILLISECONDS);
        pair.serverChannel.advanceTimeBy(StreamPressure.CHECK_MILLIS, TimeUnit.MILLISECONDS);
        pair.clientChannel.runScheduledPendingTasks();
        pair.serverChannel.runScheduledPendingTasks();
        assertThat(slowClient.stream.receiveWindow() > 0 && !slowClient.stream.window().squeezed()).isTrue();
        while (slowClient.receivedBytes() < first.length) {
            slowClient.consumeAll();
            shuttle();
        }
        assertThat(sha256(slowClient.received())).isEqualTo(sha256(first));
        assertThat(slowClient.resets).isEmpty();
    }

    /** Moves bytes both ways; the tunnel connection is read all along. */
    private void shuttle() {
        pair.shuttle();
        assertThat(pair.clientChannel.config().isAutoRead()).as("the client's tunnel connection is read").isTrue();
        assertThat(pair.serverChannel.config().isAutoRead()).as("the server's tunnel connection is read").isTrue();
    }

    private static void write(MuxStream stream, byte[] bytes) {
        for (int offset = 0; offset < bytes.length; offset += 8192) {
            stream.write(Unpooled.wrappedBuffer(bytes, offset, Math.min(8192, bytes.length - offset)));
        }
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    private static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
