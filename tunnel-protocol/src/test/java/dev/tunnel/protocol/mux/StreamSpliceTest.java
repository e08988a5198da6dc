package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.visitor.StreamSplice;
import io.netty.buffer.Unpooled;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two sessions on the server joined by a {@link StreamSplice}: the visitor's client writes, the
 * provider's client receives. Credit flows end to end: while the provider's app does not read,
 * the server holds at most one window per direction and the visitor's sender stops; once it
 * reads, every byte arrives in order. FIN and reset cross the splice.
 */
@Timeout(20)
class StreamSpliceTest {
    private static final int WINDOW = 16 * 1024;
    private static final MuxSettings FIXED = new MuxSettings(WINDOW, WINDOW);

    /** server = the tunnel server's session of the visitor's client, client = that client. */
    private final MuxPair visitor = new MuxPair(FIXED, FIXED);
    /** server = the tunnel server's session of the provider's client, client = that client. */
    private final MuxPair provider = new MuxPair(FIXED, FIXED);

    @AfterEach
    void close() {
        visitor.close();
        provider.close();
    }

    private void shuttle() {
        for (int i = 0; i < 4; i++) {
            visitor.shuttle();
            provider.shuttle();
        }
    }

    /** Opens a visitor stream and splices it to a new provider stream; returns {visitor client end, provider client end}. */
    private RecordingHandler[] splice() {
        RecordingHandler visitorEnd = visitor.openFromClient();
        visitor.shuttle();
        MuxStream atServer = visitor.acceptedByServer.get(0).stream;
        StreamSplice.Side visitorSide = new StreamSplice.Side(atServer, visitor.serverChannel.eventLoop(), null);
        MuxStream toProvider = provider.server.openStream(3, "visitor");
        StreamSplice.connect(visitorSide, new StreamSplice.Side(toProvider, provider.serverChannel.eventLoop(), null));
        shuttle();
        return new RecordingHandler[] {visitorEnd, provider.acceptedByClient.get(0)};
    }

    @Test
    void bytesCrossInOrderAndASlowProviderStopsTheVisitorsSender() {
        RecordingHandler[] ends = splice();
        RecordingHandler visitorEnd = ends[0];
        RecordingHandler providerEnd = ends[1];
        byte[] payload = new byte[10 * WINDOW];
        new Random(3).nextBytes(payload);
        int offset = 0;
        while (offset < payload.length && visitorEnd.stream.isWritable()) {
            visitorEnd.stream.write(Unpooled.wrappedBuffer(payload, offset, 4096));
            offset += 4096;
            shuttle();
        }
        // the provider's app has not read: one window at its client, at most one held on the server
        assertThat(providerEnd.receivedBytes()).isEqualTo(WINDOW);
        assertThat(offset).as("bytes the visitor could send").isLessThanOrEqualTo(3 * WINDOW);

        providerEnd.autoConsume().consumeAll();
        while (offset < payload.length) {
            if (visitorEnd.stream.isWritable()) {
                visitorEnd.stream.write(Unpooled.wrappedBuffer(payload, offset, 4096));
                offset += 4096;
            }
            shuttle();
        }
        shuttle();
        assertThat(providerEnd.received()).isEqualTo(payload);
    }

    @Test
    void finCrossesTheSpliceAndTheAnswerComesBack() {
        RecordingHandler[] ends = splice();
        ends[0].stream.write(Unpooled.wrappedBuffer("ping".getBytes()));
        ends[0].stream.shutdownOutput();
        shuttle();
        assertThat(ends[1].fins).isEqualTo(1);
        ends[1].autoConsume().consumeAll();
        ends[1].stream.write(Unpooled.wrappedBuffer("pong".getBytes()));
        ends[1].stream.shutdownOutput();
        shuttle();
        assertThat(new String(ends[0].received())).isEqualTo("pong");
        assertThat(ends[0].fins).isEqualTo(1);
        assertThat(visitor.server.streamCount()).isZero();
        assertThat(provider.server.streamCount()).isZero();
    }

    @Test
    void aResetOnOneSideResetsTheOther() {
        RecordingHandler[] ends = splice();
        ends[1].stream.reset(ResetCode.CONNECT_FAILED);
        shuttle();
        assertThat(ends[0].resets).containsExactly(ResetCode.CONNECT_FAILED);
    }

    @Test
    void aRefusedVisitorGetsTheReasonAndTheProviderSeesNothing() {
        RecordingHandler visitorEnd = visitor.openFromClient();
        visitor.shuttle();
        StreamSplice.Side side = new StreamSplice.Side(visitor.acceptedByServer.get(0).stream,
                visitor.serverChannel.eventLoop(), null);
        StreamSplice.refuse(side, ResetCode.VISITOR_AUTH_FAILED);
        shuttle();
        assertThat(visitorEnd.resets).containsExactly(ResetCode.VISITOR_AUTH_FAILED);
        assertThat(provider.acceptedByClient).isEmpty();
    }
}
