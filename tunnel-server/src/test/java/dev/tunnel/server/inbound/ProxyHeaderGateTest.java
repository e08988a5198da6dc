package dev.tunnel.server.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageEncoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The gate a public connection passes on a port that reads PROXY headers from trusted balancers. */
class ProxyHeaderGateTest {
    private static final TrustedSources TRUST = TrustedSources.parse(List.of("10.0.0.0/8", "127.0.0.1"));
    private static final InetSocketAddress BALANCER = new InetSocketAddress("10.1.2.3", 40000);
    private static final InetSocketAddress STRANGER = new InetSocketAddress("192.0.2.9", 40001);

    private final Downstream downstream = new Downstream();
    private EmbeddedChannel channel;

    @AfterEach
    void release() {
        downstream.bytes.release();
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void aV1HeaderFromATrustedBalancerNamesTheVisitorAndTheBytesBehindItFollow() {
        connect(BALANCER);
        assertThat(downstream.active).as("nothing behind the gate sees the connection before its header").isZero();
        channel.writeInbound(ascii("PROXY TCP4 203.0.113.7 10.0.0.1 51234 80\r\nhello"));
        assertThat(downstream.active).isEqualTo(1);
        assertThat(VisitorAddress.of(channel)).isEqualTo(new InetSocketAddress("203.0.113.7", 51234));
        assertThat(downstream.text()).isEqualTo("hello");
        assertThat(channel.pipeline().names()).doesNotContain(ProxyHeaderGate.NAME, "proxyHeaderDecoder");
    }

    @Test
    void aV2HeaderSplitOverTwoReadsIsReadWhole() {
        connect(BALANCER);
        ByteBuf header = v2(HAProxyCommand.PROXY);
        channel.writeInbound(header.readRetainedSlice(10));
        assertThat(downstream.active).isZero();
        channel.writeInbound(Unpooled.wrappedBuffer(header, ascii("after")));
        assertThat(downstream.active).isEqualTo(1);
        assertThat(VisitorAddress.of(channel)).isEqualTo(new InetSocketAddress("2001:db8::7", 443));
        assertThat(downstream.text()).isEqualTo("after");
    }

    @Test
    void aLocalHeaderKeepsTheBalancerAsThePeer() {
        connect(BALANCER);
        channel.writeInbound(v2(HAProxyCommand.LOCAL));
        assertThat(downstream.active).isEqualTo(1);
        assertThat(VisitorAddress.of(channel)).isEqualTo(BALANCER);
    }

    @Test
    void aTrustedBalancerWithoutAHeaderIsRefused() {
        connect(BALANCER);
        channel.writeInbound(ascii("GET / HTTP/1.1\r\nHost: a.example\r\n\r\n"));
        assertThat(channel.isOpen()).isFalse();
        assertThat(downstream.active).isZero();
        assertThat(downstream.bytes.readableBytes()).isZero();
    }

    @Test
    void aMalformedHeaderIsRefused() {
        connect(BALANCER);
        channel.writeInbound(ascii("PROXY TCP4 999.0.0.1 10.0.0.1 1 80\r\nhello"));
        assertThat(channel.isOpen()).isFalse();
        assertThat(downstream.active).isZero();
    }

    @Test
    void aTrustedBalancerThatSendsNothingIsClosedAfterTheHeaderTimeout() {
        connect(BALANCER);
        channel.advanceTimeBy(ProxyHeaderGate.HEADER_TIMEOUT_MS - 100, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).isTrue();
        channel.advanceTimeBy(200, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aHeaderFromAnyOtherAddressIsRefusedBeforeAnythingBehindTheGateSawTheConnection() {
        connect(STRANGER);
        assertThat(downstream.active).as("nothing opens before the first bytes are known").isZero();
        channel.writeInbound(ascii("PROXY TCP4 203.0.113.7 10.0.0.1 51234 80\r\n"));
        assertThat(channel.isOpen()).isFalse();
        assertThat(downstream.active).as("no stream was opened for it").isZero();
        assertThat(downstream.inactive).isZero();
        assertThat(downstream.bytes.readableBytes()).as("the app never sees a forged header").isZero();

        connect(STRANGER);
        ByteBuf v2 = v2(HAProxyCommand.PROXY);
        channel.writeInbound(v2.readRetainedSlice(5));
        channel.writeInbound(v2);
        assertThat(channel.isOpen()).isFalse();
        assertThat(downstream.active).isZero();
        assertThat(downstream.bytes.readableBytes()).isZero();
    }

    @Test
    void aSilentDirectVisitorGoesOnAfterAMomentAndALateHeaderIsStillRefused() {
        connect(STRANGER);
        channel.advanceTimeBy(ForgedHeaderCheck.FIRST_BYTES_WAIT_MS - 100, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(downstream.active).isZero();
        channel.advanceTimeBy(200, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(downstream.active).as("a protocol where the server speaks first is not held up").isEqualTo(1);
        assertThat(downstream.readCompletes).as("so a collector of the first read hands it on").isEqualTo(1);

        channel.writeInbound(ascii("PROXY TCP4 203.0.113.7 10.0.0.1 51234 80\r\n"));
        assertThat(channel.isOpen()).isFalse();
        assertThat(downstream.bytes.readableBytes()).isZero();
        assertThat(downstream.inactive).isEqualTo(1);
    }

    @Test
    void aDirectVisitorsOwnBytesPassEvenWhenTheyStartLikeASignature() {
        connect(STRANGER);
        channel.writeInbound(ascii("PRO"));
        assertThat(downstream.bytes.readableBytes()).as("held while it could still be a header").isZero();
        assertThat(downstream.active).isZero();
        channel.writeInbound(ascii("XIMITY"));
        assertThat(downstream.active).isEqualTo(1);
        assertThat(downstream.text()).isEqualTo("PROXIMITY");
        assertThat(VisitorAddress.of(channel)).isEqualTo(STRANGER);
        assertThat(channel.pipeline().names()).doesNotContain(ForgedHeaderCheck.NAME);
    }

    @Test
    void withNoTrustedBalancerNothingIsInstalled() {
        EmbeddedChannel unregistered = new PeerChannel(BALANCER);
        ProxyHeaderGate.install(unregistered.pipeline(), TrustedSources.none());
        assertThat(unregistered.pipeline().names()).doesNotContain(ProxyHeaderGate.NAME);
    }

    @Test
    void trustedEntriesAreAddressesOrNetworks() {
        assertThat(TRUST.trusts(new InetSocketAddress("10.255.0.1", 1))).isTrue();
        assertThat(TRUST.trusts(new InetSocketAddress("127.0.0.1", 1))).isTrue();
        assertThat(TRUST.trusts(new InetSocketAddress("127.0.0.2", 1))).isFalse();
        assertThat(TrustedSources.parse(List.of("::1")).trusts(new InetSocketAddress("::1", 1))).isTrue();
        assertThat(TrustedSources.problem("lb.example")).contains("no host names");
        assertThat(TrustedSources.problem("10.0.0.0/33")).contains("prefix /33 (expected: 0-32)");
        assertThatThrownBy(() -> TrustedSources.parse(List.of("10.0.0.0/x"))).hasMessageContaining("prefix /x");
    }

    private void connect(SocketAddress peer) {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
        downstream.active = 0;
        downstream.inactive = 0;
        downstream.readCompletes = 0;
        channel = new PeerChannel(peer);
        ProxyHeaderGate.install(channel.pipeline(), TRUST);
        channel.pipeline().addLast(downstream);
        try {
            channel.register();
            channel.freezeTime(); // from here the timers (set on register) run only when a test advances the clock
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ByteBuf v2(HAProxyCommand command) {
        HAProxyMessage message = command == HAProxyCommand.LOCAL
                ? new HAProxyMessage(HAProxyProtocolVersion.V2, command, HAProxyProxiedProtocol.UNKNOWN, null, null, 0, 0)
                : new HAProxyMessage(HAProxyProtocolVersion.V2, command, HAProxyProxiedProtocol.TCP6,
                "2001:db8::7", "2001:db8::1", 443, 8443);
        EmbeddedChannel encoder = new EmbeddedChannel(HAProxyMessageEncoder.INSTANCE);
        encoder.writeOutbound(message);
        ByteBuf out = encoder.readOutbound();
        encoder.finishAndReleaseAll();
        return out;
    }

    private static ByteBuf ascii(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }

    /** An embedded channel with an IP peer, registered only once its pipeline is built. */
    private static final class PeerChannel extends EmbeddedChannel {
        private final SocketAddress peer;

        PeerChannel(SocketAddress peer) {
            super(false, false);
            this.peer = peer;
        }

        @Override
        protected SocketAddress remoteAddress0() {
            return peer;
        }
    }

    /** What the rest of the pipeline sees. */
    @io.netty.channel.ChannelHandler.Sharable
    private static final class Downstream extends ChannelInboundHandlerAdapter {
        final io.netty.buffer.CompositeByteBuf bytes = Unpooled.compositeBuffer();
        int active;
        int inactive;
        int readCompletes;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active++;
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactive++;
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            readCompletes++;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            bytes.addComponent(true, (ByteBuf) msg);
        }

        String text() {
            return bytes.toString(StandardCharsets.US_ASCII);
        }
    }
}
