package dev.tunnel.client;

import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.relay.StreamRelay;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.protocol.udp.UdpFront;
import dev.tunnel.protocol.udp.UdpLimits;
import dev.tunnel.protocol.udp.UdpSockets;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local ports of the visitors, while a session is logged in: an stcp visitor's TCP port,
 * whose every connection becomes a stream relayed as a public connection is; an sudp visitor's
 * UDP port, whose every peer gets an association ({@link UdpFront}). Both bound on the session's
 * loop when it logs in and closed when it ends, so a connection, its stream and the tunnel
 * connection share one thread.
 *
 * <p>Threading: {@link #start} and {@link #stop} run on the session's event loop; {@link VisitorOwner}
 * chooses the session.
 */
final class VisitorListeners {
    private static final Logger log = LoggerFactory.getLogger(VisitorListeners.class);

    private final Collection<VisitorTarget> visitors;
    private final ChannelGroup localConns;
    private final int udpPacketSize;
    private final List<Channel> bound = new ArrayList<>();
    private boolean stopped;

    VisitorListeners(Collection<VisitorTarget> visitors, ChannelGroup localConns, int udpPacketSize) {
        this.visitors = visitors;
        this.localConns = localConns;
        this.udpPacketSize = udpPacketSize;
    }

    /** Binds the ports, unless {@link #stop} ran first. */
    void start(VisitorStreams streams) {
        if (stopped) {
            return;
        }
        for (VisitorTarget visitor : visitors) {
            ChannelFuture future = "sudp".equals(visitor.type()) ? bindUdp(visitor, streams) : bindTcp(visitor, streams);
            bound.add(future.channel());
            future.addListener(f -> {
                if (f.isSuccess()) {
                    log.info("{} listening on {}:{}", visitor, visitor.bindAddr(), visitor.bindPort());
                } else {
                    log.error("{} cannot listen on [{}:{}]: {}", visitor, visitor.bindAddr(), visitor.bindPort(),
                            f.cause().getMessage());
                }
            });
        }
    }

    /** Closes the ports (for good); returns their closing. */
    List<ChannelFuture> stop() {
        stopped = true;
        List<ChannelFuture> closing = bound.stream().map(Channel::close).toList();
        bound.clear();
        return closing;
    }

    private ChannelFuture bindTcp(VisitorTarget visitor, VisitorStreams streams) {
        return new ServerBootstrap()
                .group(streams.mux().eventLoop(), streams.mux().eventLoop())
                .channel(Transports.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        MuxStream stream = streams.open(visitor, String.valueOf(ch.remoteAddress()));
                        if (stream == null) {
                            ch.close();
                            return;
                        }
                        localConns.add(ch);
                        StreamRelay relay = new StreamRelay(stream);
                        VisitorStreams.logRefusals(stream, relay, log, visitor, ch.remoteAddress());
                        ch.pipeline().addLast(dev.tunnel.protocol.TunnelPipeline.RELAY, relay);
                    }
                })
                .bind(visitor.bindAddr(), visitor.bindPort());
    }

    private ChannelFuture bindUdp(VisitorTarget visitor, VisitorStreams streams) {
        UdpFront front = new UdpFront(visitor.describe(), peer -> streams.open(visitor, String.valueOf(peer)),
                udpPacketSize, UdpLimits.MAX_ASSOCIATIONS, UdpLimits.IDLE_NANOS);
        return UdpSockets.configure(new Bootstrap(), Transports.datagramChannel(), udpPacketSize)
                .group(streams.mux().eventLoop())
                .channel(Transports.datagramChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .handler(front)
                .bind(visitor.bindAddr(), visitor.bindPort());
    }
}
