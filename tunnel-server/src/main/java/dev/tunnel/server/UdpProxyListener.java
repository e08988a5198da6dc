package dev.tunnel.server;

import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.protocol.udp.UdpFront;
import dev.tunnel.protocol.udp.UdpLimits;
import dev.tunnel.protocol.udp.UdpSockets;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public UDP port of a {@code udp} proxy: a {@link UdpFront} whose associations are streams
 * on the client's session, one per peer address. A client has at most {@code maxStreams} streams
 * open; a new peer beyond that gets no association and its datagrams are dropped (counted).
 *
 * <p>Threading: the socket lives on the session's event loop, like its streams.
 */
final class UdpProxyListener implements PublicPort {
    private static final Logger log = LoggerFactory.getLogger(UdpProxyListener.class);

    private final String name;
    private final int proxyId;
    private final MuxSession session;
    private final int maxStreams;
    private final int packetSize;
    private Channel channel;
    private UdpFront front;

    UdpProxyListener(String name, int proxyId, MuxSession session, int maxStreams, int packetSize) {
        this.name = name;
        this.proxyId = proxyId;
        this.session = session;
        this.maxStreams = maxStreams;
        this.packetSize = packetSize;
    }

    ChannelFuture bind(String host, int port) {
        front = new UdpFront("proxy [" + name + "]", this::open, packetSize, UdpLimits.MAX_ASSOCIATIONS,
                UdpLimits.IDLE_NANOS);
        ChannelFuture future = UdpSockets.configure(new Bootstrap(), Transports.datagramChannel(), packetSize)
                .group(session.eventLoop())
                .channel(Transports.datagramChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .handler(front)
                .bind(host, port);
        channel = future.channel();
        return future;
    }

    private MuxStream open(InetSocketAddress peer) {
        if (!session.channel().isActive()) {
            return null;
        }
        if (maxStreams > 0 && session.streamCount() >= maxStreams) {
            return null;
        }
        MuxStream stream = session.openStream(proxyId, String.valueOf(peer));
        log.debug("{} proxy [{}] UDP association {} -> {}", session.channel(), name, peer, stream);
        return stream;
    }

    /** The front, for its drop counters. */
    UdpFront front() {
        return front;
    }

    @Override
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public ChannelFuture close() {
        return channel == null ? null : channel.close();
    }
}
