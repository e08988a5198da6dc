package dev.tunnel.server;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamRelay;
import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public port of one proxy. Each accepted connection becomes a stream on the client's
 * session at once: the OPEN frame and the first bytes go out without waiting for the client.
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
    private Channel serverChannel;
    private long lastLimitLogNanos = Long.MIN_VALUE;
    private int refusedSinceLog;

    /** @param maxStreams open streams the client's session may have; a connection beyond that is refused; 0 = no limit */
    ProxyListener(String name, int proxyId, MuxSession session, int maxStreams) {
        this.name = name;
        this.proxyId = proxyId;
        this.session = session;
        this.maxStreams = maxStreams;
    }

    ChannelFuture bind(String host, int port) {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(session.eventLoop(), session.eventLoop())
                .channel(Transports.serverChannel())
                .option(ChannelOption.SO_BACKLOG, Listeners.BACKLOG)
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

    void close() {
        if (serverChannel != null) {
            serverChannel.close();
        }
    }
}
