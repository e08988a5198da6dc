package dev.tunnel.server;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamRelay;
import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public port of one proxy. In mux mode each accepted connection becomes a stream on the
 * client's session at once: the OPEN frame and the first bytes go out without waiting for the
 * client. In pool mode it takes a work connection from the session's {@link WorkConnPool}.
 * Accepted connections join {@code publicConns}, which the shutdown drain waits on.
 *
 * <p>Threading: the listening socket and every accepted channel live on the session's event
 * loop, so accepting a connection, its stream and the tunnel connection share one thread and a
 * new connection costs no hand-off between threads.
 */
final class ProxyListener {
    private static final Logger log = LoggerFactory.getLogger(ProxyListener.class);

    private final String name;
    private final int proxyId;
    private final MuxSession session;
    private final WorkConnPool pool;
    private final ChannelGroup publicConns;
    private Channel serverChannel;

    /** @param pool the session's work connections in pool mode, null in mux mode */
    ProxyListener(String name, int proxyId, MuxSession session, WorkConnPool pool, ChannelGroup publicConns) {
        this.name = name;
        this.proxyId = proxyId;
        this.session = session;
        this.pool = pool;
        this.publicConns = publicConns;
    }

    ChannelFuture bind(String host, int port) {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(session.eventLoop(), session.eventLoop())
                .channel(Transports.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accept(ch);
                    }
                });
        ChannelFuture future = bootstrap.bind(host, port);
        serverChannel = future.channel();
        return future;
    }

    private void accept(SocketChannel ch) {
        if (!session.channel().isActive()) {
            ch.close();
            return;
        }
        publicConns.add(ch);
        if (pool != null) {
            pool.take(ch, PipeRelay.attach(ch), name, proxyId);
            return;
        }
        MuxStream stream = session.openStream(proxyId, String.valueOf(ch.remoteAddress()));
        ch.pipeline().addLast(TunnelPipeline.RELAY, new StreamRelay(stream));
        log.debug("{} proxy [{}] public connection {} -> {}", session.channel(), name, ch.remoteAddress(), stream);
    }

    int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    String name() {
        return name;
    }

    /** Closes the public port; returns the close future, or null if it was never bound. */
    ChannelFuture close() {
        return serverChannel == null ? null : serverChannel.close();
    }
}
