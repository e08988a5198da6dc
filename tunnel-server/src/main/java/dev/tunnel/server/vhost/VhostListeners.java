package dev.tunnel.server.vhost;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.relay.RelayedSockets;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.server.inbound.ProxyHeaderGate;
import dev.tunnel.server.inbound.TrustedSources;
import dev.tunnel.server.proxy.ConnectionLog;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shared vhost ports: {@code vhostHTTPPort} (requests routed by Host and path) and
 * {@code vhostHTTPSPort} (TLS routed by SNI). Both accept on the server's event loops; a
 * connection moves to the loop of the proxy it is routed to. Accepted connections join
 * {@code publicConns}, which the shutdown drain waits on. The HTTP port registers a new
 * connection on the loop its latest request was routed to ({@link LoopAffinity}), so most never move.
 * With {@code proxyProtocolTrustedIPs} set, a {@link ProxyHeaderGate} heads every connection's pipeline.
 */
public final class VhostListeners implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(VhostListeners.class);

    private final List<Channel> listeners = new ArrayList<>();

    private VhostListeners() {
    }

    /**
     * Binds the ports that are set (non-zero); throws with {@code failed to bind on [addr:port]}
     * when one cannot be bound.
     */
    public static VhostListeners bind(EventLoopGroup group, String address, int httpPort, int httpsPort,
                                      VhostSettings settings, ChannelGroup publicConns, int backlog,
                                      TrustedSources trust) {
        VhostListeners bound = new VhostListeners();
        try {
            if (httpPort != 0) {
                LoopAffinity affinity = new LoopAffinity(group);
                bound.listeners.add(bind(group, address, httpPort, backlog, affinity,
                        new HttpVhostInitializer(settings, affinity, publicConns, trust)));
                log.info("vhost HTTP port listening on {}", bound.listeners.get(bound.listeners.size() - 1).localAddress());
            }
            if (httpsPort != 0) {
                bound.listeners.add(bind(group, address, httpsPort, backlog, null, new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        publicConns.add(ch);
                        ConnectionLog.install(ch);
                        ProxyHeaderGate.install(ch.pipeline(), trust);
                        ch.pipeline().addLast(TunnelPipeline.SNI, new SniRouter(settings));
                    }
                }));
                log.info("vhost HTTPS port listening on {} (routed by SNI, TLS passed through)",
                        bound.listeners.get(bound.listeners.size() - 1).localAddress());
            }
            return bound;
        } catch (RuntimeException e) {
            bound.close();
            throw e;
        }
    }

    private static Channel bind(EventLoopGroup group, String address, int port, int backlog, LoopAffinity affinity,
                                ChannelInitializer<SocketChannel> initializer) {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(Transports.serverChannel())
                .option(ChannelOption.SO_BACKLOG, backlog)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                .childHandler(initializer);
        if (affinity != null) {
            bootstrap.handler(new AffinityAcceptor(affinity, initializer));
        }
        try {
            return bootstrap.bind(address, port).syncUninterruptibly().channel();
        } catch (Exception e) {
            throw new IllegalStateException("failed to bind on [" + address + ":" + port + "]: " + e.getMessage(), e);
        }
    }

    /**
     * On the listening socket's pipeline, ahead of the bootstrap's own acceptor: registers each
     * accepted socket on the loop {@link LoopAffinity} picks, with the options the bootstrap
     * would have set.
     */
    private static final class AffinityAcceptor extends ChannelInboundHandlerAdapter {
        private final LoopAffinity affinity;
        private final ChannelInitializer<SocketChannel> initializer;

        AffinityAcceptor(LoopAffinity affinity, ChannelInitializer<SocketChannel> initializer) {
            this.affinity = affinity;
            this.initializer = initializer;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Channel child = (Channel) msg;
            RelayedSockets.configure(child.config()); // the options the bootstrap would set, with no second TCP_NODELAY
            child.pipeline().addLast(initializer);
            try {
                affinity.next().register(child).addListener(f -> {
                    if (!f.isSuccess()) {
                        log.debug("{} could not be registered: {}", child, f.cause().toString());
                        child.unsafe().closeForcibly();
                    }
                });
            } catch (RuntimeException e) { // a loop that is shutting down
                log.debug("{} could not be registered: {}", child, e.toString());
                child.unsafe().closeForcibly();
            }
        }
    }

    /** The port actually bound for {@code index} (0 = the first bound), for tests with port 0. */
    public int port(int index) {
        return ((java.net.InetSocketAddress) listeners.get(index).localAddress()).getPort();
    }

    @Override
    public void close() {
        for (Channel ch : listeners) {
            ch.close().syncUninterruptibly();
        }
        listeners.clear();
    }
}
