package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.udp.DatagramDecoder;
import dev.tunnel.protocol.udp.DatagramFrames;
import dev.tunnel.protocol.udp.UdpDrops;
import dev.tunnel.protocol.udp.UdpFront;
import dev.tunnel.protocol.udp.UdpLimits;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@link UdpFront} on an EmbeddedChannel (the public UDP socket) over a {@link MuxPair}: one
 * stream per peer with whole datagrams, replies to the right peer, bounded associations under a
 * flood of addresses, a bounded entrance queue that drops its oldest when the stream is out of
 * credit (while another stream of the session keeps flowing), and delivers the rest in order, one write per read's burst, and idle associations ending.
 */
@Timeout(20)
class UdpOverMuxTest {
    private static final int WINDOW = 16 * 1024;
    private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 6000);

    private final MuxPair pair = new MuxPair(new MuxSettings(WINDOW, WINDOW), new MuxSettings(WINDOW, WINDOW));
    private final List<EmbeddedChannel> sockets = new ArrayList<>();
    /** The server's end of each association's stream, in order of opening. */
    private final List<MuxStream> opened = new ArrayList<>();

    @AfterEach
    void close() {
        sockets.forEach(EmbeddedChannel::finishAndReleaseAll);
        pair.close();
    }

    private EmbeddedChannel socket(UdpFront front) {
        EmbeddedChannel ch = new EmbeddedChannel(front);
        sockets.add(ch);
        return ch;
    }

    private UdpFront front(int maxAssociations, long idleNanos) {
        return new UdpFront("proxy [test]", peer -> opened(pair.server.openStream(1, peer.toString())), 1500,
                maxAssociations, idleNanos);
    }

    private MuxStream opened(MuxStream stream) {
        opened.add(stream);
        return stream;
    }

    private static InetSocketAddress peer(int i) {
        return new InetSocketAddress("203.0.113." + (i % 250 + 1), 10_000 + i / 250);
    }

    private static void send(EmbeddedChannel socket, InetSocketAddress from, byte[] payload) {
        socket.writeInbound(new DatagramPacket(Unpooled.wrappedBuffer(payload), LOCAL, from));
    }

    /** The datagrams framed in what {@code handler} received. */
    static List<byte[]> decode(RecordingHandler handler) {
        List<byte[]> out = new ArrayList<>();
        new DatagramDecoder(1500).decode(Unpooled.wrappedBuffer(handler.received()), d -> {
            byte[] b = new byte[d.readableBytes()];
            d.readBytes(b);
            d.release();
            out.add(b);
        });
        return out;
    }

    @Test
    void eachPeerGetsOneStreamCarryingItsDatagramsWhole() {
        EmbeddedChannel socket = socket(front(16, TimeUnit.SECONDS.toNanos(60)));
        send(socket, peer(1), new byte[] {1, 1});
        send(socket, peer(2), new byte[] {2});
        send(socket, peer(1), new byte[1200]);
        pair.shuttle();
        assertThat(pair.acceptedByClient).hasSize(2);
        assertThat(pair.acceptedByClient.get(0).source).isEqualTo(peer(1).toString());
        assertThat(decode(pair.acceptedByClient.get(0))).containsExactly(new byte[] {1, 1}, new byte[1200]);
        assertThat(decode(pair.acceptedByClient.get(1))).containsExactly(new byte[] {2});
    }

    @Test
    void datagramsFromTheStreamGoBackToTheirPeer() {
        EmbeddedChannel socket = socket(front(16, TimeUnit.SECONDS.toNanos(60)));
        send(socket, peer(7), new byte[] {7});
        pair.shuttle();
        MuxStream home = pair.acceptedByClient.get(0).stream;
        home.write(DatagramFrames.encode(ByteBufAllocator.DEFAULT, Unpooled.wrappedBuffer(new byte[] {42, 43})));
        pair.shuttle();
        socket.runPendingTasks();
        DatagramPacket reply = socket.readOutbound();
        assertThat(reply.recipient()).isEqualTo(peer(7));
        assertThat(reply.content().readableBytes()).isEqualTo(2);
        reply.release();
    }

    @Test
    void aFloodOfSourceAddressesKeepsAssociationsBoundedAndEvictsTheLongestIdle() {
        UdpFront front = front(8, TimeUnit.SECONDS.toNanos(60));
        EmbeddedChannel socket = socket(front);
        for (int i = 0; i < 1000; i++) {
            send(socket, peer(i), new byte[] {(byte) i});
            assertThat(front.associationCount()).isLessThanOrEqualTo(8);
        }
        pair.shuttle();
        assertThat(front.evicted()).isEqualTo(992);
        assertThat(pair.server.streamCount()).as("streams left open on the session").isEqualTo(8);
        long reset = pair.acceptedByClient.stream().filter(h -> h.resets.contains(ResetCode.CANCEL)).count();
        assertThat(reset).isEqualTo(992);
    }

    private static byte[] numbered(int seq, int size) {
        byte[] payload = new byte[size];
        java.nio.ByteBuffer.wrap(payload).putInt(seq);
        return payload;
    }

    private static List<Integer> seqs(List<byte[]> datagrams) {
        return datagrams.stream().map(d -> java.nio.ByteBuffer.wrap(d).getInt()).toList();
    }

    @Test
    void aStreamOutOfCreditQueuesAtTheEntranceDropsTheOldestWaitingAndAnotherStreamStillFlows() {
        UdpFront front = front(16, TimeUnit.SECONDS.toNanos(60));
        EmbeddedChannel socket = socket(front);
        int count = 1300;
        for (int i = 0; i < count; i++) {
            send(socket, peer(1), numbered(i, 1000)); // the home side does not consume yet: credit runs out
        }
        pair.shuttle();
        RecordingHandler udp = pair.acceptedByClient.get(0);
        MuxStream stream = opened.get(0);
        assertThat(udp.receivedBytes()).isLessThanOrEqualTo(WINDOW);
        assertThat(stream.queuedBytes()).as("waiting in the stream").isLessThanOrEqualTo(UdpLimits.STREAM_QUEUE);
        int framed = 1000 + DatagramFrames.HEADER_BYTES;
        int written = (udp.receivedBytes() + stream.queuedBytes()) / framed;
        int waiting = UdpLimits.ASSOCIATION_QUEUE / 1000;
        assertThat(front.budget().used()).as("bytes at the entrance").isEqualTo(waiting * 1000L);
        assertThat(front.drops().count(UdpDrops.Reason.NO_CREDIT)).isEqualTo(count - written - waiting);

        RecordingHandler tcp = pair.openFromServer();
        tcp.stream.write(Unpooled.wrappedBuffer(new byte[8192]));
        pair.shuttle();
        assertThat(pair.acceptedByClient.get(1).receivedBytes()).isEqualTo(8192);

        for (int round = 0; round < 10_000 && udp.receivedBytes() < (written + waiting) * framed; round++) {
            udp.consumeAll(); // credit comes back: the entrance queue drains onto the stream
            pair.shuttle();
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < written; i++) {
            expected.add(i); // what was written onto the stream is never dropped
        }
        for (int i = count - waiting; i < count; i++) {
            expected.add(i); // the newest waited; the oldest waiting were dropped
        }
        assertThat(seqs(decode(udp))).containsExactlyElementsOf(expected);
        assertThat(front.budget().used()).isZero();
    }

    @Test
    void aReadLargerThanTheStreamQueueWaitsAtTheEntranceAndFollowsAtOnceWhenCreditAllows() {
        MuxSettings wide = new MuxSettings(4 * 1024 * 1024, 4 * 1024 * 1024);
        try (MuxPair big = new MuxPair(wide, wide)) {
            UdpFront front = new UdpFront("proxy [test]", p -> big.server.openStream(1, p.toString()), 1500, 16,
                    TimeUnit.SECONDS.toNanos(60));
            EmbeddedChannel socket = socket(front);
            Object[] read = new Object[300]; // 360 KB in one read: more than the stream's 128 KiB queue
            for (int i = 0; i < read.length; i++) {
                read[i] = new DatagramPacket(Unpooled.wrappedBuffer(numbered(i, 1200)), LOCAL, peer(1));
            }
            socket.writeInbound(read);
            big.shuttle();
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < read.length; i++) {
                expected.add(i);
            }
            assertThat(seqs(decode(big.acceptedByClient.get(0)))).containsExactlyElementsOf(expected);
            assertThat(front.drops().total()).isZero();
            assertThat(front.budget().used()).isZero();
        }
    }

    @Test
    void anAssociationEndingWithDatagramsWaitingFreesThemAndGivesTheBudgetBack() {
        UdpFront front = front(16, TimeUnit.SECONDS.toNanos(60));
        EmbeddedChannel socket = socket(front);
        for (int i = 0; i < 400; i++) {
            send(socket, peer(1), numbered(i, 1200));
        }
        pair.shuttle();
        assertThat(front.budget().used()).isPositive();
        socket.close(); // the proxy closes: its associations end
        assertThat(front.budget().used()).isZero();
        assertThat(front.drops().total()).isZero();
    }

    @Test
    void theDatagramsOfOneReadGoOntoTheStreamAsOneContiguousWriteAndArriveWhole() {
        MuxSettings wide = new MuxSettings(256 * 1024, 256 * 1024);
        try (MuxPair big = new MuxPair(wide, wide)) {
            EmbeddedChannel socket = socket(new UdpFront("proxy [test]", p -> big.server.openStream(1, p.toString()),
                    1500, 16, TimeUnit.SECONDS.toNanos(60)));
            Object[] burst = new Object[UdpLimits.DATAGRAMS_PER_READ];
            List<byte[]> sent = new ArrayList<>();
            for (int i = 0; i < burst.length; i++) {
                byte[] payload = new byte[1200];
                java.util.Arrays.fill(payload, (byte) i);
                sent.add(payload);
                burst[i] = new DatagramPacket(Unpooled.wrappedBuffer(payload), LOCAL, peer(1));
            }
            socket.writeInbound(burst); // one read: a socket backlog taken by one recvmmsg
            big.serverChannel.runPendingTasks();
            io.netty.buffer.ByteBuf wire;
            while ((wire = big.serverChannel.readOutbound()) != null) {
                // a composite would be encrypted as a TLS record per component: two per datagram
                assertThat(wire.nioBufferCount()).as("buffers of one write").isEqualTo(1);
                big.clientChannel.writeInbound(wire);
            }
            big.shuttle();
            RecordingHandler home = big.acceptedByClient.get(0);
            assertThat(home.chunkSizes).as("DATA frames for one read").hasSize(1);
            assertThat(decode(home)).containsExactlyElementsOf(sent);
        }
    }

    @Test
    void anIdleAssociationEndsAndItsStreamIsReset() {
        UdpFront front = front(16, TimeUnit.MILLISECONDS.toNanos(50));
        EmbeddedChannel socket = socket(front);
        send(socket, peer(1), new byte[] {1});
        pair.shuttle();
        assertThat(front.associationCount()).isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            socket.runScheduledPendingTasks();
            return front.associationCount() == 0;
        });
        pair.shuttle();
        assertThat(pair.acceptedByClient.get(0).resets).containsExactly(ResetCode.CANCEL);
    }

    @Test
    void anOversizeDatagramIsDroppedAndCounted() {
        UdpFront front = front(16, TimeUnit.SECONDS.toNanos(60));
        EmbeddedChannel socket = socket(front);
        send(socket, peer(1), new byte[1501]);
        pair.shuttle();
        assertThat(pair.acceptedByClient).isEmpty();
        assertThat(front.drops().count(UdpDrops.Reason.OVERSIZE)).isEqualTo(1);
    }
}
