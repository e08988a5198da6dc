package dev.tunnel.client;

import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.transport.Failures;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.protocol.udp.UdpDrops;
import dev.tunnel.protocol.udp.UdpLimits;
import dev.tunnel.protocol.udp.UdpSockets;
import dev.tunnel.protocol.udp.UdpLocalRelay;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The home end of UDP associations ({@code udp} and {@code sudp} proxies): for each stream the
 * server opens, a UDP socket of its own connected to the local app ({@link UdpLocalRelay}), so
 * each peer's replies come back on its own association.
 *
 * <p>Threading: the session's event loop; the sockets are registered on it.
 */
final class UdpConnector {
    private static final Logger log = LoggerFactory.getLogger(UdpConnector.class);

    private final EventLoop eventLoop;
    private final ChannelGroup localConns;
    private final int packetSize;
    private final Map<Integer, UdpDrops> drops = new HashMap<>();

    UdpConnector(EventLoop eventLoop, ChannelGroup localConns, int packetSize) {
        this.eventLoop = eventLoop;
        this.localConns = localConns;
        this.packetSize = packetSize;
    }

    /** Opens the association's local socket and relays {@code stream} through it. */
    void connect(MuxStream stream, int proxyId, String name, InetSocketAddress local, String source) {
        UdpDrops proxyDrops = drops.computeIfAbsent(proxyId, id -> new UdpDrops(log, "proxy [" + name + "]"));
        UdpLocalRelay relay = new UdpLocalRelay(stream, packetSize, proxyDrops, UdpLimits.LOCAL_IDLE_NANOS);
        ChannelFuture connecting = UdpSockets.configure(new Bootstrap(), Transports.datagramChannel(), packetSize)
                .group(eventLoop)
                .channel(Transports.datagramChannel())
                .handler(relay)
                .connect(local);
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                relay.connectFailed();
                log.warn("proxy [{}] cannot open a UDP socket to local app {}: {} (association of {} closed)", name,
                        local, Failures.describe(f.cause()), source);
            }
        });
        localConns.add(connecting.channel());
    }
}
