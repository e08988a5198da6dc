package dev.tunnel.protocol.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TransportsTest {

    @Test
    void zeroMeansOneLoopPerCoreNotNettysTwo() {
        assertThat(Transports.threads(0)).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(Transports.threads(3)).isEqualTo(3);
    }

    @Test
    void groupHasTheConfiguredNumberOfLoops() {
        assertThat(loops(Transports.newGroup(3, "three"))).isEqualTo(3);
        assertThat(loops(Transports.newGroup(0, "per-core"))).isEqualTo(Runtime.getRuntime().availableProcessors());
    }

    private static final Transports.Availability ALL = new Transports.Availability(null, null);
    private static final Transports.Availability NO_IO_URING =
            new Transports.Availability(new UnsupportedOperationException("kernel too old"), null);
    private static final Transports.Availability NOTHING_NATIVE = new Transports.Availability(
            new UnsupportedOperationException("not Linux"), new UnsupportedOperationException("not Linux"));

    @Test
    void autoTakesTheMeasuredDefaultAndFallsBackToEpollThenNio() {
        assertThat(Transports.choose("auto", null, ALL).kind()).isEqualTo(Transports.AUTO);
        assertThat(Transports.choose("auto", null, ALL).kind()).isEqualTo(Transports.Kind.EPOLL);
        assertThat(Transports.choose("auto", null, NO_IO_URING).kind()).isEqualTo(Transports.Kind.EPOLL);
        Transports.Choice nio = Transports.choose("auto", null, NOTHING_NATIVE);
        assertThat(nio.kind()).isEqualTo(Transports.Kind.NIO);
        assertThat(nio.reason()).contains("epoll unavailable", "not Linux");
    }

    @Test
    void onRequiresIoUringAndSaysWhyItCannot() {
        assertThat(Transports.choose("on", null, ALL).kind()).isEqualTo(Transports.Kind.IO_URING);
        assertThatThrownBy(() -> Transports.choose("on", null, NO_IO_URING))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("transport.ioUring = \"on\"").hasMessageContaining("kernel too old");
    }

    @Test
    void offUsesEpoll() {
        Transports.Choice off = Transports.choose("off", null, ALL);
        assertThat(off.kind()).isEqualTo(Transports.Kind.EPOLL);
        assertThat(off.toString()).isEqualTo("epoll (transport.ioUring = off)");
    }

    @Test
    void theSystemPropertyOverridesTheConfig() {
        assertThat(Transports.choose("on", "nio", ALL).kind()).isEqualTo(Transports.Kind.NIO);
        assertThat(Transports.choose("off", "io_uring", ALL).kind()).isEqualTo(Transports.Kind.IO_URING);
        assertThatThrownBy(() -> Transports.choose("auto", "io_uring", NO_IO_URING))
                .hasMessageContaining("not available here");
        assertThatThrownBy(() -> Transports.choose("auto", "kqueue", ALL)).hasMessageContaining("expected: io_uring, epoll or nio");
    }

    @Test
    void everyKindBuildsAGroupItsChannelsRegisterWith() throws Exception {
        for (Transports.Kind kind : Transports.Kind.values()) {
            if (kind == Transports.Kind.IO_URING && !IoUring.isAvailable() || kind == Transports.Kind.EPOLL && !Epoll.isAvailable()) {
                continue;
            }
            EventLoopGroup group = Transports.newGroup(kind, 1, "kind-" + kind);
            try {
                Channel server = new ServerBootstrap().group(group).channel(Transports.serverChannel(kind))
                        .childHandler(new ChannelInboundHandlerAdapter()).bind("127.0.0.1", 0).sync().channel();
                Channel client = new Bootstrap().group(group).channel(Transports.socketChannel(kind))
                        .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
                assertThat(client.isActive()).as(kind.toString()).isTrue();
                client.close().sync();
                server.close().sync();
            } finally {
                group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
            }
        }
    }

    private static int loops(EventLoopGroup group) {
        try {
            int n = 0;
            for (Object ignored : group) {
                n++;
            }
            return n;
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
