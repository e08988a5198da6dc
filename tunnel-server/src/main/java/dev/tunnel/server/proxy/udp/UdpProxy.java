package dev.tunnel.server.proxy.udp;

import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.protocol.udp.UdpFront;
import dev.tunnel.protocol.udp.UdpLimits;
import dev.tunnel.protocol.udp.UdpSockets;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.PublicPortBinding;
import dev.tunnel.server.proxy.RunningProxy;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.server.vhost.ProxyProtocolHeader;
import dev.tunnel.protocol.relay.TokenBucket;
import dev.tunnel.protocol.udp.DatagramLimiter;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;

/**
 * One running udp proxy: its UDP port ({@link PublicPortBinding} in the session's UDP port space,
 * bound on the session's loop) and the {@link UdpFront} on it, whose associations open streams
 * through the session's link (so {@code transport.maxStreamsPerClient} holds: a new peer beyond it
 * gets no association, its datagrams are dropped and counted); in pool mode through a
 * {@link UdpCarrier}, a work connection of its own carrying a private mux session. Its datagrams' bytes count as the
 * proxy's traffic and its drops are the proxy's {@link ProxyRef#datagramDrops()}, for the
 * dashboard and /metrics.
 *
 * <p>Threading: session loop; the socket and every stream of it live there.
 */
final class UdpProxy implements RunningProxy {
    private final ProxyRequest request;
    private final ProxySession session;
    private final int packetSize;
    private final ProxyRef ref;
    private final PublicPortBinding binding;
    /** Pool mode's work connection for the associations, once the socket is bound; null in mux mode. */
    private UdpCarrier carrier;

    UdpProxy(ProxyRequest request, ProxySession session, int packetSize) {
        this.request = request;
        this.session = session;
        this.packetSize = packetSize;
        this.ref = request.proxy();
        this.binding = new PublicPortBinding(session, session.ports().udp(), "UDP ", this::bind);
    }

    Future<RunningProxy> start(int remotePort) {
        return binding.start(remotePort, this, request.qualifiedName());
    }

    private ChannelFuture bind(String host, int port) {
        UdpFront front = new UdpFront("proxy [" + request.qualifiedName() + "]", this::open, packetSize,
                UdpLimits.MAX_ASSOCIATIONS, UdpLimits.IDLE_NANOS).counting(ref.traffic());
        ref.datagramDrops(front.drops());
        if (ref.proxyProtocol() != null) {
            front.prefixingFirstDatagrams(ProxyProtocolHeader::encodeDatagram);
        }
        return UdpSockets.configure(new Bootstrap(), Transports.datagramChannel(), packetSize)
                .group(session.link().eventLoop())
                .channel(Transports.datagramChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .handler(limited(front))
                .bind(host, port)
                .addListener(f -> {
                    if (f.isSuccess()) {
                        Channel socket = ((ChannelFuture) f).channel();
                        UdpSockets.checkBuffers(socket);
                        if (!session.link().carriesStreams()) {
                            carrier = new UdpCarrier(session.link(), ref, socket);
                            carrier.start();
                        }
                    }
                });
    }

    /**
     * {@code bandwidthLimitMode = "server"}: the datagrams peers send are dropped over the limit
     * before the front sees them (what visitors upload, as for tcp).
     */
    private ChannelHandler limited(UdpFront front) {
        TokenBucket bucket = ref.bandwidth();
        if (bucket == null) {
            return front;
        }
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(TunnelPipeline.BANDWIDTH, new DatagramLimiter(bucket, front.drops()));
                ch.pipeline().addLast(front);
            }
        };
    }

    private MuxStream open(InetSocketAddress peer) {
        if (!ref.admitsVisitor(peer, "datagrams")) {
            return null;
        }
        return carrier != null ? carrier.open(peer) : session.link().openStream(ref, String.valueOf(peer));
    }

    /** Pool mode's carrier, or null (mux mode, or not bound yet). */
    UdpCarrier carrier() {
        return carrier;
    }

    @Override
    public int remotePort() {
        return binding.port();
    }

    @Override
    public Future<?> close() {
        if (carrier != null) {
            carrier.close();
        }
        return binding.close();
    }
}
