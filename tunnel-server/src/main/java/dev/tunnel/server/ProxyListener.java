package dev.tunnel.server;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.mux.StreamRelay;
import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.server.web.ServerStats;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The public port of one proxy. In mux mode each accepted connection becomes a stream on the
 * client's session at once: the OPEN frame and the first bytes go out without waiting for the
 * client. In pool mode it takes a work connection from the session's {@link WorkConnPool}.
 * Accepted connections join {@code publicConns}, which the shutdown drain waits on. A client
 * has at most {@code maxStreams} of them open (streams in mux mode, public connections in pool
 * mode); one more is closed at once.
 *
 * <p>Threading: the listening socket lives on the session's event loop. In mux mode every
 * accepted channel lives there too, so accepting a connection, its stream and the tunnel
 * connection share one thread and a new connection costs no hand-off between threads. In pool
 * mode {@link PoolModeAcceptor} registers each accepted channel on the loop of the work
 * connection it will ride, for the same reason.
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
    private final ServerStats stats;
    private Channel serverChannel;
    private long lastLimitLogNanos = Long.MIN_VALUE;
    private int refusedSinceLog;

    /**
     * @param maxStreams open streams the client's session may have; a connection beyond that is refused; 0 = no limit
     * @param pool       the session's work connections in pool mode, null in mux mode
     */
    ProxyListener(String name, int proxyId, MuxSession session, int maxStreams, WorkConnPool pool,
                  ChannelGroup publicConns, ServerStats stats) {
        this.stats = stats;
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
                .option(ChannelOption.SO_BACKLOG, Listeners.BACKLOG)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accept(ch);
                    }
                });
        if (pool != null) {
            bootstrap.handler(new PoolModeAcceptor()); // takes every accepted socket before the bootstrap does
        }
        ChannelFuture future = bootstrap.bind(host, port);
        serverChannel = future.channel();
        return future;
    }

    /** Mux mode: the accepted channel, registered on the session's loop, becomes a stream. */
    private void accept(SocketChannel ch) {
        if (!admit(ch, session.streamCount())) {
            ch.close();
            return;
        }
        publicConns.add(ch);
        MuxStream stream = session.openStream(proxyId, String.valueOf(ch.remoteAddress()));
        ch.pipeline().addLast(TunnelPipeline.RELAY, new StreamRelay(stream));
        log.debug("{} proxy [{}] public connection {} -> {}", session.channel(), name, ch.remoteAddress(), stream);
    }

    /** Whether a new public connection may open, with {@code open} already open; logs a refusal. */
    private boolean admit(Channel ch, int open) {
        if (!session.channel().isActive()) {
            return false;
        }
        if (maxStreams > 0 && open >= maxStreams) {
            logRefusal(ch, open);
            return false;
        }
        return true;
    }

    /**
     * Pool mode, on the listening socket's pipeline (session loop): reserves an idle work
     * connection for each accepted socket and registers the socket on that connection's loop,
     * then starts the pipe there; with no idle one, the socket is registered on the session's
     * loop and waits for a work connection ({@link WorkConnPool#take}).
     */
    private final class PoolModeAcceptor extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Channel ch = (Channel) msg;
            if (!admit(ch, pool.publicConnCount())) {
                ch.unsafe().closeForcibly();
                return;
            }
            ch.config().setOption(ChannelOption.AUTO_READ, false);
            ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
            ch.config().setOption(ChannelOption.TCP_NODELAY, true);
            publicConns.add(ch);
            pool.track(ch);
            // Attached before the socket is registered: whatever it delivers first (bytes, even
            // its FIN, which epoll may report as soon as it is registered) waits in the relay.
            PipeRelay publicEnd = PipeRelay.attach(ch);
            Channel work = pool.reserveIdle();
            EventLoop loop = work != null ? work.eventLoop() : session.eventLoop();
            loop.register(ch).addListener(registered -> {
                if (!registered.isSuccess()) {
                    ch.unsafe().closeForcibly();
                    if (work != null) {
                        pool.offer(work);
                    }
                    return;
                }
                // After registration has finished (channelActive), on the socket's own loop.
                ch.eventLoop().execute(() -> {
                    if (work != null) {
                        pool.startReserved(work, ch, publicEnd, name, proxyId);
                    } else {
                        pool.take(ch, publicEnd, name, proxyId);
                    }
                });
            });
        }
    }

    /** Logs a refusal beyond transport.maxStreamsPerClient: the first, then once per 10 s with a count. */
    private void logRefusal(Channel ch, int open) {
        stats.connectionRefused();
        refusedSinceLog++;
        long now = System.nanoTime();
        if (lastLimitLogNanos == Long.MIN_VALUE || now - lastLimitLogNanos >= LIMIT_LOG_INTERVAL_NANOS) {
            log.warn("{} proxy [{}] refused {} public connection(s), latest from {}: the client already has {} open"
                    + " connections (transport.maxStreamsPerClient = {})", session.channel(), name, refusedSinceLog,
                    ch.remoteAddress(), open, maxStreams);
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
