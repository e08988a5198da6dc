package dev.tunnel.client;

import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ServerEndpoint;
import dev.tunnel.protocol.auth.ChannelBinding;
import dev.tunnel.protocol.auth.PakeMode;
import dev.tunnel.protocol.mux.MemoryLimit;
import dev.tunnel.protocol.mux.MuxSettings;
import dev.tunnel.protocol.transport.KeepAlive;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.tls.TlsContexts;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.function.Function;

/**
 * Opens tunnel connections to the servers: the socket options, TLS with each server's own name,
 * the login credentials with its own pinned fingerprint, and the pipeline
 * ({@link ClientChannelInitializer}). Shared by every {@link ServerSession} of a client.
 *
 * <p>Threading: any thread; it keeps no state that changes.
 */
final class ServerDialer {
    private final ClientConfig config;
    private final EventLoopGroup group;
    private final SslContext ssl;
    private final ClientIdentity identity;
    private final ProxyManager proxies;
    private final ChannelGroup localConns;
    private final VisitorOwner visitors;

    ServerDialer(ClientConfig config, EventLoopGroup group, SslContext ssl, ClientIdentity identity,
                 ProxyManager proxies, ChannelGroup localConns, VisitorOwner visitors) {
        this.config = config;
        this.group = group;
        this.ssl = ssl;
        this.identity = identity;
        this.proxies = proxies;
        this.localConns = localConns;
        this.visitors = visitors;
    }

    /** What the client logs in to {@code server} with; one per server, as its PAKE state is its own. */
    ClientCredentials credentials(ServerEndpoint server) {
        String pin = server.fingerprint();
        return new ClientCredentials(config.user, config.auth.token,
                pin == null || pin.isEmpty() ? null : ChannelBinding.parse(pin),
                new ClientPake(PakeMode.of(config.auth.pake)));
    }

    /** Starts a tunnel connection to {@code server}; what happens to it goes to {@code listener}. */
    ChannelFuture connect(ServerEndpoint server, ClientCredentials credentials, SessionListener listener) {
        ClientConfig.Transport t = config.transport;
        boolean verifyHostname = t.tls.trustedCaFile != null && !t.tls.trustedCaFile.isEmpty();
        Function<SocketChannel, SslHandler> tlsHandler = ssl == null ? null
                : ch -> TlsContexts.newClientHandler(ssl, ch.alloc(), server.serverName(), server.port(), verifyHostname);
        InetSocketAddress localAddress = t.connectServerLocalIP.isEmpty() ? null
                : new InetSocketAddress(t.connectServerLocalIP, 0);
        ClientWorkConn.Settings settings = new ClientWorkConn.Settings(
                InetSocketAddress.createUnresolved(server.host(), server.port()), tlsHandler, credentials,
                Math.max(1, t.dialServerTimeout) * 1000, localAddress, t.dialServerKeepalive);
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(Transports.socketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Math.max(1, t.dialServerTimeout) * 1000)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(512 * 1024, 2 * 1024 * 1024))
                .handler(new ClientChannelInitializer(tlsHandler, identity, credentials,
                        MuxSettings.configured(t.tcpMuxInitialWindow, t.tcpMuxMaxWindow, t.tcpMuxSessionWindow),
                        pingInterval(t), t.heartbeatTimeout, proxies, listener, localConns,
                        t.tcpMux ? null : settings, config.udpPacketSize, visitors));
        KeepAlive.apply(bootstrap, t.dialServerKeepalive);
        if (t.sendBufferSize > 0) {
            bootstrap.option(ChannelOption.SO_SNDBUF, t.sendBufferSize);
        }
        if (t.receiveBufferSize > 0) {
            bootstrap.option(ChannelOption.SO_RCVBUF, t.receiveBufferSize);
        }
        MemoryLimit.process().limit(t.tcpMuxMemoryLimit);
        return localAddress == null
                ? bootstrap.connect(server.host(), server.port())
                : bootstrap.connect(InetSocketAddress.createUnresolved(server.host(), server.port()), localAddress);
    }

    /** {@code control} is leaving its server: proxy changes no longer go to it. */
    void sessionEnding(io.netty.channel.Channel control) {
        proxies.sessionEnded(control);
    }

    /**
     * Seconds between the client's pings: {@code heartbeatInterval}, and in mux mode also the mux
     * keepalive ({@code tcpMuxKeepaliveInterval}), the shorter one applying; -1 for none.
     */
    static int pingInterval(ClientConfig.Transport t) {
        int heartbeat = t.heartbeatInterval > 0 ? t.heartbeatInterval : -1;
        if (!t.tcpMux) {
            return heartbeat;
        }
        return heartbeat > 0 ? Math.min(heartbeat, t.tcpMuxKeepaliveInterval) : t.tcpMuxKeepaliveInterval;
    }
}
