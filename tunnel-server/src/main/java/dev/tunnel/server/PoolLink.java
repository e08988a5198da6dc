package dev.tunnel.server;

import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.protocol.relay.RelayedSockets;
import dev.tunnel.protocol.transport.LoopMove;
import dev.tunnel.server.inbound.VisitorAddress;
import dev.tunnel.server.proxy.AppConnection;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.SessionLink;
import dev.tunnel.server.vhost.ProxyProtocolHeader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import io.netty.util.ReferenceCountUtil;
import java.util.function.Consumer;

/**
 * Pool mode's {@link SessionLink}: each public connection rides a work connection of its own
 * from the session's {@link WorkConnPool}, joined to it by a {@link PipeRelay}; the first bytes
 * go out right behind {@code START_WORK_CONN}. A connection opened for the vhost's requests
 * ({@link #open}) is a work connection too, read and written by the vhost ({@link WorkConnection}).
 *
 * <p>Threading: called on the session loop. A just-accepted connection is registered on the
 * loop of the idle work connection it reserves, so its pipe never crosses threads; one that
 * finds the pool empty waits on the session loop, and its pipe is joined across loops.
 */
final class PoolLink implements SessionLink {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PoolLink.class);
    private final Channel control;
    private final WorkConnPool pool;
    private final ChannelGroup publicConns;
    private final StreamLimit limit;
    private final ConnectionCaps caps;

    PoolLink(Channel control, WorkConnPool pool, ChannelGroup publicConns, StreamLimit limit, ConnectionCaps caps) {
        this.control = control;
        this.pool = pool;
        this.publicConns = publicConns;
        this.limit = limit;
        this.caps = caps;
    }

    @Override
    public EventLoop eventLoop() {
        return control.eventLoop();
    }

    @Override
    public Channel control() {
        return control;
    }

    @Override
    public boolean isActive() {
        return control.isActive();
    }

    @Override
    public int openCount() {
        return pool.publicConnCount();
    }

    @Override
    public void accept(Channel child, ProxyRef proxy) {
        if (!admit(child, proxy)) {
            child.unsafe().closeForcibly();
            return;
        }
        // Attached before the socket is registered: whatever it delivers first (bytes, even
        // its FIN, which epoll may report as soon as it is registered) waits in the relay.
        PipeRelay publicEnd = PipeRelay.attach(child).counted(proxy.traffic());
        Channel work = pool.reserveIdle();
        EventLoop loop = work != null ? work.eventLoop() : eventLoop();
        loop.register(child).addListener(registered -> {
            if (!registered.isSuccess()) {
                child.unsafe().closeForcibly();
                if (work != null) {
                    pool.offer(work);
                }
                return;
            }
            // After registration has finished (channelActive), on the socket's own loop.
            child.eventLoop().execute(() -> {
                sendProxyProtocolHeader(child, proxy);
                if (work != null) {
                    pool.startReserved(work, child, publicEnd, proxy.name(), proxy.id());
                } else {
                    // One read while it waits: what the visitor sent first (a request) is held in
                    // the relay and leaves with START_WORK_CONN when a work connection comes.
                    child.read();
                    pool.take(child, publicEnd, proxy.name(), proxy.id());
                }
            });
        });
    }

    @Override
    public void carry(Channel publicConn, ByteBuf firstBytes, ProxyRef proxy) {
        if (!admit(publicConn, proxy)) {
            ReferenceCountUtil.safeRelease(firstBytes);
            publicConn.close();
            return;
        }
        publicConn.eventLoop().execute(() -> {
            PipeRelay publicEnd = PipeRelay.attach(publicConn).counted(proxy.traffic());
            sendProxyProtocolHeader(publicConn, proxy);
            if (firstBytes != null) {
                publicConn.pipeline().fireChannelRead(firstBytes); // held until the pipe starts
            }
            RelayedSockets.replayEarlyEof(publicConn);
            eventLoop().execute(() -> pool.take(publicConn, publicEnd, proxy.name(), proxy.id()));
        });
    }

    @Override
    public boolean carriesStreams() {
        return false;
    }

    /**
     * Leases a work connection as {@link #open} does and moves it to the session loop, where the
     * proxy's socket lives ({@link LoopMove}; pool mode never runs on io_uring, whose channels
     * cannot move, but a connection that cannot is closed and refused all the same).
     */
    @Override
    public void openWorkConnection(Channel owner, ProxyRef proxy, Consumer<Channel> started) {
        if (!isActive()) {
            started.accept(null);
            return;
        }
        pool.lease(owner, proxy.name(), proxy.id(), work -> {
            if (work == null || work.eventLoop() == eventLoop()) {
                started.accept(work);
                return;
            }
            if (!LoopMove.canMove(work)) {
                log.warn("{} proxy [{}]: work connection {} cannot move to the session's event loop: closed",
                        control, proxy.name(), work);
                work.close();
                eventLoop().execute(() -> started.accept(null));
                return;
            }
            LoopMove.moveTo(work, eventLoop(), failure -> {
                if (failure != null || !work.isActive()) {
                    log.warn("{} proxy [{}]: work connection {} lost while moving to the session's event loop: {}",
                            control, proxy.name(), work, failure == null ? "closed" : failure.toString());
                    eventLoop().execute(() -> started.accept(null));
                } else {
                    started.accept(work);
                }
            });
        });
    }

    @Override
    public void open(Channel publicConn, ProxyRef proxy, Consumer<AppConnection> opened) {
        if (!isActive()) {
            opened.accept(null);
            return;
        }
        pool.lease(publicConn, proxy.name(), proxy.id(), work -> {
            if (work == null) {
                opened.accept(null);
                return;
            }
            WorkConnection conn = WorkConnection.start(work);
            if (proxy.proxyProtocol() != null) {
                conn.write(ProxyProtocolHeader.encode(proxy.proxyProtocol(), VisitorAddress.of(publicConn),
                        publicConn.localAddress()));
            }
            opened.accept(conn);
        });
    }

    /**
     * Hands the relay the PROXY protocol header as if the public socket had sent it first, so it
     * goes out ahead of the socket's own bytes. Before the pipe starts, on the socket's loop.
     */
    private static void sendProxyProtocolHeader(Channel publicConn, ProxyRef proxy) {
        if (proxy.proxyProtocol() != null) {
            publicConn.pipeline().fireChannelRead(ProxyProtocolHeader.encode(proxy.proxyProtocol(),
                    VisitorAddress.of(publicConn), publicConn.localAddress()));
        }
    }

    @Override
    public boolean admit(Channel publicConn, ProxyRef proxy) {
        if (!isActive() || !proxy.admitsVisitor(VisitorAddress.of(publicConn), "public connection")
                || !limit.admit(control, proxy.name(), VisitorAddress.of(publicConn), pool.publicConnCount())
                || !caps.admit(control, publicConn, proxy)) {
            return false;
        }
        RelayedSockets.configure(publicConn.config());
        publicConns.add(publicConn);
        proxy.track(publicConn);
        pool.track(publicConn);
        return true;
    }

    @Override
    public MuxStream openStream(ProxyRef proxy, String source) {
        return null; // pool mode carries sockets on work connections, no streams
    }
}
