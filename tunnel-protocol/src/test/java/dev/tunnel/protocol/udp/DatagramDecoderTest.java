package dev.tunnel.protocol.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Datagrams come back whole and in order however the stream cuts their frames. */
@Timeout(20)
class DatagramDecoderTest {
    private final List<byte[]> out = new ArrayList<>();

    private void collect(ByteBuf datagram) {
        byte[] bytes = new byte[datagram.readableBytes()];
        datagram.readBytes(bytes);
        datagram.release();
        out.add(bytes);
    }

    private static ByteBuf framed(byte[]... datagrams) {
        ByteBuf all = Unpooled.buffer();
        for (byte[] d : datagrams) {
            ByteBuf frame = DatagramFrames.encode(ByteBufAllocator.DEFAULT, Unpooled.wrappedBuffer(d));
            all.writeBytes(frame);
            frame.release();
        }
        return all;
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void datagramsInOneChunkComeOutWholeAndInOrder() {
        DatagramDecoder decoder = new DatagramDecoder(1500);
        byte[] a = bytes(1200, 1);
        byte[] b = bytes(1, 2);
        byte[] c = new byte[0];
        decoder.decode(framed(a, b, c), this::collect);
        assertThat(out).containsExactly(a, b, c);
    }

    @Test
    void aDatagramCutAtEveryPossibleBoundaryIsReassembled() {
        byte[] a = bytes(300, 3);
        byte[] b = bytes(700, 4);
        ByteBuf all = framed(a, b);
        int total = all.readableBytes();
        for (int cut = 1; cut < total; cut++) {
            out.clear();
            DatagramDecoder decoder = new DatagramDecoder(1500);
            decoder.decode(all.retainedSlice(0, cut), this::collect);
            decoder.decode(all.retainedSlice(cut, total - cut), this::collect);
            assertThat(out).as("cut at %d", cut).containsExactly(a, b);
        }
        all.release();
    }

    @Test
    void oneByteChunksStillGiveWholeDatagrams() {
        byte[] a = bytes(1500, 5);
        ByteBuf all = framed(a, a);
        DatagramDecoder decoder = new DatagramDecoder(1500);
        while (all.isReadable()) {
            decoder.decode(all.readRetainedSlice(1), this::collect);
        }
        all.release();
        assertThat(out).containsExactly(a, a);
    }

    @Test
    void anOversizeDatagramIsSkippedAndCountedAndTheNextOneStillArrives() {
        byte[] big = bytes(1501, 6);
        byte[] small = bytes(10, 7);
        ByteBuf all = framed(big, small, big);
        DatagramDecoder decoder = new DatagramDecoder(1500);
        decoder.decode(all.readRetainedSlice(700), this::collect);
        decoder.decode(all.readRetainedSlice(all.readableBytes()), this::collect);
        all.release();
        assertThat(out).containsExactly(small);
        assertThat(decoder.oversize()).isEqualTo(2);
    }

    @Test
    void randomBytesNeverFailAndNeverYieldMoreThanTheLimit() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            DatagramDecoder decoder = new DatagramDecoder(512);
            for (int i = 0; i < 20; i++) {
                byte[] junk = new byte[random.nextInt(2000)];
                random.nextBytes(junk);
                decoder.decode(Unpooled.wrappedBuffer(junk), d -> {
                    assertThat(d.readableBytes()).isLessThanOrEqualTo(512);
                    d.release();
                });
            }
            decoder.release();
        }
    }

    @Test
    void releaseFreesAPartialDatagram() {
        ByteBuf all = framed(bytes(1000, 8));
        DatagramDecoder decoder = new DatagramDecoder(1500);
        decoder.decode(all.readRetainedSlice(500), this::collect);
        decoder.release();
        all.release();
        assertThat(out).isEmpty();
    }
}
