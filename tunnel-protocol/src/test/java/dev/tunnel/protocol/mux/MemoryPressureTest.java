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
 * Memory pressure slows a session down and closes nothing: with direct memory over the mark
 * (forced through {@link MemoryLimit#forcedTight}), a session stops reading its tunnel
 * connection, keeps it and every stream open, and resumes once the mark is cleared, with every
 * byte delivered.
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

    @Test
    void pressurePausesReadsWithoutClosingTheSessionOrAnyStream() throws Exception {
        pair = new MuxPair(MuxSettings.defaults(), MuxSettings.defaults());
        // only the test moves time: the sessions' timers (pressure re-check, RTT probe) run when it says
        pair.serverChannel.freezeTime();
        pair.clientChannel.freezeTime();
        RecordingHandler slow = pair.openFromServer().autoConsume();
        RecordingHandler other = pair.openFromServer().autoConsume();
        byte[] first = random(100_000, 1);
        byte[] second = random(100_000, 2);
        write(slow.stream, first);
        pair.shuttle();
        assertThat(pair.acceptedByClient).hasSize(2);
        RecordingHandler slowClient = pair.acceptedByClient.get(0).autoConsume();
        RecordingHandler otherClient = pair.acceptedByClient.get(1).autoConsume();
        slowClient.consumeAll();
        otherClient.consumeAll();

        MemoryLimit.forcedTight = true;
        write(slow.stream, second);
        write(other.stream, second);
        pair.shuttle();

        assertThat(pair.client.isPaused()).as("client session paused").isTrue();
        assertThat(pair.clientChannel.config().isAutoRead()).as("tunnel connection not read").isFalse();
        assertThat(pair.clientChannel.isOpen()).as("tunnel connection open").isTrue();
        assertThat(pair.serverChannel.isOpen()).isTrue();
        assertThat(pair.client.streamCount()).as("every stream still open").isEqualTo(2);
        assertThat(pair.server.streamCount()).isEqualTo(2);
        assertThat(slow.resets).isEmpty();
        assertThat(other.resets).isEmpty();
        assertThat(slowClient.resets).isEmpty();
        assertThat(otherClient.resets).isEmpty();

        MemoryLimit.forcedTight = false;
        for (int tick = 0; tick < 5 && (pair.client.isPaused() || pair.server.isPaused()); tick++) {
            pair.clientChannel.advanceTimeBy(20, TimeUnit.MILLISECONDS);
            pair.serverChannel.advanceTimeBy(20, TimeUnit.MILLISECONDS);
            pair.clientChannel.runScheduledPendingTasks();
            pair.serverChannel.runScheduledPendingTasks();
        }
        assertThat(pair.client.isPaused()).as("resumed once the mark is cleared").isFalse();
        assertThat(pair.clientChannel.config().isAutoRead()).as("reading resumed").isTrue();
        pair.shuttle();

        assertThat(sha256(slowClient.received())).isEqualTo(sha256(concat(first, second)));
        assertThat(sha256(otherClient.received())).isEqualTo(sha256(second));
        assertThat(slowClient.resets).isEmpty();
        assertThat(otherClient.resets).isEmpty();
    }

    private static void write(MuxStream stream, byte[] bytes) {
        for (int offset = 0; offset < bytes.length; offset += 8192) {
            stream.write(Unpooled.wrappedBuffer(bytes, offset, Math.min(8192, bytes.length - offset)));
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
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
