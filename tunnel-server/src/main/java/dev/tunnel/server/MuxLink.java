package dev.tunnel.server;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.relay.RelayedSockets;
import dev.tunnel.protocol.relay.StreamRelay;
import dev.tunnel.server.inbound.VisitorAddress;
import dev.tunnel.server.proxy.AppConnection;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.SessionLink;
import dev.tunnel.server.proxy.StreamConnection;
import dev.tunnel.server.vhost.ProxyProtocolHeader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import io.netty.util.ReferenceCountUtil;
import java.net.SocketAddress;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Mux mode's {@link SessionLink}: each public connection becomes a stream on the session's
 * tunnel connection at once; the OPEN frame and the first bytes go out without waiting for the
 * client ({@link StreamRelay}).
 *
 * <p>Threading: session loop. Every public connection is registered on it too, so accepting a
 * connection, its stream and the tunnel connection share one thread and a new connection costs
 * no hand-off between threads.
 */
final class MuxLink implements SessionLink {
    private static final Logger log = LoggerFactory.getLogger(MuxLink.class);

    private final MuxSession mux;
    private final ChannelGroup publicConns;
    private final StreamLimit limit;
    private final ConnectionCaps caps;

    MuxLink(MuxSession mux, ChannelGroup publicConns, StreamLimit limit, ConnectionCaps caps) {
        this.mux = mux;
        this.publicConns = publicConns;
        this.limit = limit;
        this.caps = caps;
    }

    @Override
    public EventLoop eventLoop() {
        return mux.eventLoop();
    }

    @Override
    public Channel control() {
        return mux.channel();
    }

    @Override
    public boolean isActive() {
        return mux.channel().isActive();
    }

    @Override
    public int openCount() {
        return mux.streamCount();
    }

    @Override
    public void accept(Channel child, ProxyRef proxy) {
        StreamRelay relay = relayFor(child, proxy);
        if (relay == null) {
            child.unsafe().closeForcibly();
            return;
        }
        child.pipeline().addLast(TunnelPipeline.RELAY, relay);
        mux.eventLoop().register(child).addListener(f -> {
            if (!f.isSuccess()) {
                child.unsafe().closeForcibly();
                relay.stream().reset(ResetCode.CANCEL);
            }
        });
    }

    @Override
    public void carry(Channel publicConn, ByteBuf firstBytes, ProxyRef proxy) {
        if (publicConn.eventLoop() != mux.eventLoop()) {
            publicConn.deregister().addListener(f -> mux.eventLoop().execute(() -> {
                if (!f.isSuccess()) {
                    ReferenceCountUtil.safeRelease(firstBytes);
                    publicConn.close();
                    return;
                }
                mux.eventLoop().register(publicConn).addListener(r -> {
                    if (r.isSuccess()) {
                        carryHere(publicConn, firstBytes, proxy);
                    } else {
                        ReferenceCountUtil.safeRelease(firstBytes);
                        publicConn.unsafe().closeForcibly();
                    }
                });
            }));
            return;
        }
        carryHere(publicConn, firstBytes, proxy);
    }

    /** {@code publicConn} is registered (and active) on the session loop. */
    private void carryHere(Channel publicConn, ByteBuf firstBytes, ProxyRef proxy) {
        StreamRelay relay = relayFor(publicConn, proxy);
        if (relay == null) {
            ReferenceCountUtil.safeRelease(firstBytes);
            publicConn.close();
            return;
        }
        publicConn.pipeline().addLast(TunnelPipeline.RELAY, relay);
        publicConn.pipeline().fireChannelActive(); // the relay starts as for a new connection
        if (firstBytes != null) {
            publicConn.pipeline().fireChannelRead(firstBytes).fireChannelReadComplete();
        }
        RelayedSockets.replayEarlyEof(publicConn); // read on the loop it left, or before the relay came
    }

    @Override
    public MuxStream openStream(ProxyRef proxy, String source) {
        if (!isActive() || !limit.admit(mux.channel(), proxy.name(), source, mux.streamCount())) {
            return null;
        }
        MuxStream stream = mux.openStream(proxy.id(), source);
        log.debug("{} proxy [{}] {} -> {}", mux.channel(), proxy.name(), source, stream);
        return stream;
    }

    /** Admits the connection and opens its stream with a relay; null when refused. */
    private StreamRelay relayFor(Channel publicConn, ProxyRef proxy) {
        MuxStream stream = openStream(publicConn, proxy);
        return stream == null ? null : new StreamRelay(stream, proxy.traffic());
    }

    @Override
    public boolean carriesStreams() {
        return true;
    }

    @Override
    public boolean admit(Channel publicConn, ProxyRef proxy) {
        if (!isActive() || !proxy.admitsVisitor(VisitorAddress.of(publicConn), "public connection")
                || !limit.admit(mux.channel(), proxy.name(), publicConn, mux.streamCount())
                || !caps.admit(mux.channel(), publicConn, proxy)) {
            return false;
        }
        RelayedSockets.configure(publicConn.config());
        publicConns.add(publicConn);
        proxy.track(publicConn);
        return true;
    }

    @Override
    public void open(Channel publicConn, ProxyRef proxy, Consumer<AppConnection> opened) {
        opened.accept(isActive() ? new StreamConnection(openAdmitted(publicConn, proxy), eventLoop()) : null);
    }

    /**
     * Admits {@code publicConn} against the session's limits and opens a stream to {@code proxy}'s
     * local app for it; null when refused (logged).
     */
    private MuxStream openStream(Channel publicConn, ProxyRef proxy) {
        return admit(publicConn, proxy) ? openAdmitted(publicConn, proxy) : null;
    }

    /** Opens a stream for an admitted connection, with the PROXY protocol header already written when the proxy asks for one. */
    private MuxStream openAdmitted(Channel publicConn, ProxyRef proxy) {
        SocketAddress visitor = VisitorAddress.of(publicConn);
        MuxStream stream = mux.openStream(proxy.id(), String.valueOf(visitor));
        if (proxy.proxyProtocol() != null) {
            stream.write(ProxyProtocolHeader.encode(proxy.proxyProtocol(), visitor, publicConn.localAddress()));
        }
        log.debug("{} proxy [{}] public connection {} -> {}", mux.channel(), proxy.name(), visitor,
                stream);
        return stream;
    }
}
