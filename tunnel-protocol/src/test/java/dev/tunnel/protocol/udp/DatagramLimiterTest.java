package dev.tunnel.protocol.udp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.relay.TokenBucket;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class DatagramLimiterTest {
    private final AtomicLong now = new AtomicLong();
    private final UdpDrops drops = new UdpDrops(LoggerFactory.getLogger(DatagramLimiterTest.class), "proxy [t]");
    private final InetSocketAddress peer = new InetSocketAddress("127.0.0.1", 5353);

    private DatagramPacket datagram(int size) {
        return new DatagramPacket(Unpooled.buffer(size).writeZero(size), new InetSocketAddress("127.0.0.1", 9), peer);
    }

    @Test
    void datagramsOverTheBucketAreDroppedCountedAndReleasedUntilItRefills() {
        TokenBucket bucket = new TokenBucket(1000, now::get);
        EmbeddedChannel ch = new EmbeddedChannel(new DatagramLimiter(bucket, drops));
        DatagramPacket[] sent = new DatagramPacket[4];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = datagram(400);
            ch.writeInbound(sent[i]);
        }
        // 1000 of burst: 400, 400, then 400 into debt (the bucket was not in debt yet), then refused
        assertThat(ch.inboundMessages()).hasSize(3);
        assertThat(drops.count(UdpDrops.Reason.BANDWIDTH)).isEqualTo(1);
        assertThat(sent[3].refCnt()).as("the dropped datagram is released").isZero();

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(200)); // refills 200 of the 200 of debt
        ch.writeInbound(datagram(400));
        assertThat(ch.inboundMessages()).hasSize(4);
        ch.writeInbound(datagram(400));
        assertThat(drops.count(UdpDrops.Reason.BANDWIDTH)).isEqualTo(2);
        assertThat(ch.finishAndReleaseAll()).isTrue();
    }

    @Test
    void bareBuffersOfAConnectedSocketAreLimitedToo() {
        TokenBucket bucket = new TokenBucket(100, now::get);
        EmbeddedChannel ch = new EmbeddedChannel(new DatagramLimiter(bucket, drops));
        ByteBuf first = Unpooled.buffer(150).writeZero(150);
        ByteBuf second = Unpooled.buffer(10).writeZero(10);
        ch.writeInbound(first, second);
        assertThat(ch.inboundMessages()).hasSize(1);
        assertThat(second.refCnt()).isZero();
        assertThat(ch.finishAndReleaseAll()).isTrue();
    }
}
