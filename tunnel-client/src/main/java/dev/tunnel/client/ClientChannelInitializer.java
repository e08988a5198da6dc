package dev.tunnel.client;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.Heartbeat;
import dev.tunnel.protocol.mux.MuxSession;
import dev.tunnel.protocol.mux.MuxSettings;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import java.util.function.Function;

/**
 * Builds the client side of the tunnel connection; see {@link TunnelPipeline} for the picture.
 * Does nothing else.
 */
final class ClientChannelInitializer extends ChannelInitializer<SocketChannel> {
    private final Function<SocketChannel, io.netty.handler.ssl.SslHandler> tls;
    private final ClientIdentity identity;
    private final ClientCredentials credentials;
    private final MuxSettings muxSettings;
    private final int heartbeatInterval;
    private final int heartbeatTimeout;
    private final ProxyManager proxies;
    private final SessionListener listener;
    private final ChannelGroup localConns;
    private final ClientWorkConn.Settings workConns;
    private final int udpPacketSize;
    private final VisitorOwner visitors;

    /**
     * @param workConns how to open work connections in pool mode; null in mux mode
     */
    ClientChannelInitializer(Function<SocketChannel, io.netty.handler.ssl.SslHandler> tls, ClientIdentity identity,
                             ClientCredentials credentials, MuxSettings muxSettings, int heartbeatInterval, int heartbeatTimeout,
                             ProxyManager proxies, SessionListener listener, ChannelGroup localConns,
                             ClientWorkConn.Settings workConns, int udpPacketSize,
                             VisitorOwner visitors) {
        this.visitors = visitors;
        this.udpPacketSize = udpPacketSize;
        this.localConns = localConns;
        this.workConns = workConns;
        this.tls = tls;
        this.identity = identity;
        this.credentials = credentials;
        this.muxSettings = muxSettings;
        this.heartbeatInterval = heartbeatInterval;
        this.heartbeatTimeout = heartbeatTimeout;
        this.proxies = proxies;
        this.listener = listener;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ChannelPipeline p = ch.pipeline();
        if (tls != null) {
            p.addLast(TunnelPipeline.TLS, tls.apply(ch));
        }
        MuxSession mux = new MuxSession(false, muxSettings, new LocalConnector(proxies, ch.eventLoop(), localConns,
                udpPacketSize));
        Heartbeat heartbeat = new Heartbeat(mux, heartbeatInterval, heartbeatTimeout);
        TunnelPipeline.addSession(p, mux, heartbeat, heartbeatTimeout);
        if (workConns != null) {
            p.addLast(TunnelPipeline.WORK_CONNS, new WorkConnector(workConns, proxies, localConns, udpPacketSize));
        }
        p.addLast(TunnelPipeline.CONTROL, new ClientControlHandler(identity, credentials, mux, heartbeat, proxies, listener,
                tls != null, visitors));
    }
}
