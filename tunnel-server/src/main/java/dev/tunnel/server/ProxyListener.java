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
    private static final long LIMIT_LOG_INTERVAL_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

    private final String name;
    private final int proxyId;
    private final MuxSession session;
    private final int maxStreams;
    private final WorkConnPool pool;
    private final ChannelGroup publicConns;
    private Channel serverChannel;
    private long lastLimitLogNanos = Long.MIN_VALUE;
    private int refusedSinceLog;

    /**
     * @param maxStreams open streams the client's session may have; a connection beyond that is refused; 0 = no limit
     * @param pool       the session's work connections in pool mode, null in mux mode
     */
    ProxyListener(String name, int proxyId, MuxSession session, int maxStreams, WorkConnPool pool,
                  ChannelGroup publicConns) {
        this.name = name;
        this.proxyId = proxyId;
        this.session = session;
        this.maxStreams = maxStreams;
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
        if (maxStreams > 0 && session.streamCount() >= maxStreams) {
            refuseOverLimit(ch);
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

    /** Closes a public connection beyond transport.maxStreamsPerClient; logs the first, then once per 10 s with a count. */
    private void refuseOverLimit(SocketChannel ch) {
        ch.close();
        refusedSinceLog++;
        long now = System.nanoTime();
        if (lastLimitLogNanos == Long.MIN_VALUE || now - lastLimitLogNanos >= LIMIT_LOG_INTERVAL_NANOS) {
            log.warn("{} proxy [{}] refused {} public connection(s), latest from {}: the client already has {} open"
                    + " streams (transport.maxStreamsPerClient = {})", session.channel(), name, refusedSinceLog,
                    ch.remoteAddress(), session.streamCount(), maxStreams);
            lastLimitLogNanos = now;
            refusedSinceLog = 0;
        }
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
