package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.udp.DatagramFrames;
import dev.tunnel.protocol.udp.UdpDrops;
import dev.tunnel.protocol.udp.UdpLimits;
import dev.tunnel.protocol.udp.UdpLocalRelay;
import dev.tunnel.protocol.udp.UdpQueueBudget;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.helpers.NOPLogger;

/**
 * The home end of a UDP association ({@link UdpLocalRelay}) on an EmbeddedChannel (its socket
 * toward the app) over a {@link MuxPair}: the datagrams of one read from the app leave as one
 * contiguous write (one TLS record per 16 KiB rather than two per datagram), the datagrams of one
 * DATA frame reach the app with one flush and return their credit at once, and a socket that
 * does not drain drops and counts instead of queueing.
 */
@Timeout(20)
class UdpLocalRelayTest {
    private static final int WINDOW = 256 * 1024;

    private final MuxPair pair = new MuxPair(new MuxSettings(WINDOW, WINDOW), new MuxSettings(WINDOW, WINDOW));
    private final UdpDrops drops = new UdpDrops(NOPLogger.NOP_LOGGER, "proxy [test]");
    private final FlushCounter flushes = new FlushCounter();
    private EmbeddedChannel app;
    private RecordingHandler publicSide;

    /** Counts flushes toward the app and, when {@link #hold} is set, keeps them from draining the socket. */
    private static final class FlushCounter extends ChannelOutboundHandlerAdapter {
        int count;
        boolean hold;

        @Override
        public void flush(ChannelHandlerContext ctx) {
            count++;
            if (!hold) {
                ctx.flush();
            }
        }
    }

    private void open(int highWatermark) {
        pair.clientAcceptor = (stream, proxyId, source) -> {
            app = new EmbeddedChannel(flushes, new UdpLocalRelay(stream, 1500, drops, UdpQueueBudget.perProxy(), TimeUnit.SECONDS.toNanos(60)));
            app.config().setWriteBufferWaterMark(new WriteBufferWaterMark(highWatermark / 2, highWatermark));
        };
        publicSide = pair.openFromServer().autoConsume();
        publicSide.stream.write(framed(List.of(new byte[] {0}))); // the first datagram opens the association
        pair.shuttle();
        ByteBuf first = app.readOutbound();
        first.release();
        flushes.count = 0;
    }

    @AfterEach
    void close() {
        if (app != null) {
            app.finishAndReleaseAll();
        }
        pair.close();
    }

    private static List<byte[]> datagrams(int count, int size) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] d = new byte[size];
            Arrays.fill(d, (byte) i);
            out.add(d);
        }
        return out;
    }

    private static ByteBuf framed(List<byte[]> datagrams) {
        CompositeByteBuf all = Unpooled.compositeBuffer();
        for (byte[] d : datagrams) {
            all.addComponent(true, DatagramFrames.encode(ByteBufAllocator.DEFAULT, Unpooled.wrappedBuffer(d)));
        }
        return all;
    }

    @Test
    void theDatagramsOfOneReadFromTheAppLeaveAsOneContiguousWriteAndArriveWhole() {
        open(1024 * 1024);
        List<byte[]> sent = datagrams(UdpLimits.DATAGRAMS_PER_READ, 1200);
        app.writeInbound(sent.stream().map(Unpooled::wrappedBuffer).toArray()); // one read of the socket

        pair.clientChannel.runPendingTasks();
        ByteBuf wire;
        while ((wire = pair.clientChannel.readOutbound()) != null) {
            assertThat(wire.nioBufferCount()).as("buffers TLS would encrypt as records of their own").isEqualTo(1);
            pair.serverChannel.writeInbound(wire);
        }
        pair.shuttle();

        assertThat(publicSide.chunkSizes).as("DATA frames for one read").hasSize(1);
        assertThat(UdpOverMuxTest.decode(publicSide)).containsExactlyElementsOf(sent);
    }

    @Test
    void theDatagramsOfOneDataFrameReachTheAppWithOneFlushAndReturnTheirCreditAtOnce() {
        open(1024 * 1024);
        int creditBefore = publicSide.stream.sendCredit();
        // one DATA frame, more than a sixteenth of the window: its credit goes back in one update
        List<byte[]> sent = datagrams(40, 1200);
        publicSide.stream.write(framed(sent));
        pair.shuttle();

        assertThat(flushes.count).isEqualTo(1);
        for (byte[] expected : sent) {
            ByteBuf d = app.readOutbound();
            assertThat(d).isNotNull();
            byte[] b = new byte[d.readableBytes()];
            d.readBytes(b);
            d.release();
            assertThat(b).isEqualTo(expected);
        }
        assertThat((Object) app.readOutbound()).isNull();
        assertThat(publicSide.stream.sendCredit()).as("credit after the app's socket took them")
                .isGreaterThanOrEqualTo(creditBefore);
        assertThat(drops.total()).isZero();
    }

    @Test
    void aSocketThatDoesNotDrainDropsAndCountsInsteadOfQueueing() {
        open(8 * 1024);
        flushes.hold = true; // the app's socket never sends: its queue stays full
        int creditBefore = publicSide.stream.sendCredit();
        List<byte[]> sent = datagrams(100, 1200);
        publicSide.stream.write(framed(sent));
        pair.shuttle();

        long queued = app.unsafe().outboundBuffer().totalPendingWriteBytes();
        assertThat(queued).as("bytes held for the app, with the queue's own overhead")
                .isLessThanOrEqualTo(8 * 1024 + 1200 + 200);
        flushes.hold = false;
        app.flush();
        int kept = app.outboundMessages().size();
        assertThat(kept).isPositive();
        assertThat(drops.count(UdpDrops.Reason.SOCKET_FULL)).isEqualTo(100 - kept);
        assertThat(publicSide.stream.sendCredit()).as("dropped datagrams give their credit back")
                .isGreaterThanOrEqualTo(creditBefore);
    }
}
