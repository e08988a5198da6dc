package dev.tunnel.client.proxy.tcp;

import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.protocol.relay.RelayedSockets;
import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;

/** A TCP connection to the local app per public connection, with the relayed-socket options. */
public final class TcpDialer implements LocalDialer {
    /** How long a local app may take to accept a connection. */
    public static final int CONNECT_TIMEOUT_MILLIS = 10_000;

    private final InetSocketAddress local;

    public TcpDialer(InetSocketAddress local) {
        this.local = local;
    }

    @Override
    public ChannelFuture connect(EventLoop loop, ChannelHandler relay) {
        return RelayedSockets.configure(new Bootstrap())
                .group(loop)
                .channel(Transports.socketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MILLIS)
                .handler(relay)
                .connect(local);
    }

    @Override
    public String describe() {
        return String.valueOf(local);
    }
}
