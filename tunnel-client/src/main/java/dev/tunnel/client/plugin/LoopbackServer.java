package dev.tunnel.client.plugin;

import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.client.proxy.tcp.TcpDialer;
import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.ChannelGroupFuture;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A plugin that speaks a protocol ({@code http_proxy}, {@code socks5}, {@code tls2raw}): a server on
 * {@code 127.0.0.1}, port chosen by the OS, that the proxy's connections are relayed to like any
 * local app. Accepted sockets get the relayed-socket options ({@code AUTO_READ} off, half-close
 * allowed): each plugin handler reads only when it can take what it reads.
 *
 * <p>It listens on loopback only and speaks plaintext there; the tunnel carries it over TLS.
 * Thread-safe: {@link #close()} may be called from any thread.
 */
final class LoopbackServer implements LocalPlugin {

    static final int CLOSE_WAIT_SECONDS = 5;

    private final Channel serverChannel;
    private final ChannelGroup connections;
    private final TcpDialer dialer;

    private LoopbackServer(Channel serverChannel, ChannelGroup connections) {
        this.serverChannel = serverChannel;
        this.connections = connections;
        this.dialer = new TcpDialer((InetSocketAddress) serverChannel.localAddress());
    }

    /**
     * Binds 127.0.0.1:0 on {@code group}; every accepted connection gets {@code pipeline}'s handlers.
     * Returns once bound.
     */
    static LoopbackServer start(EventLoopGroup group, String name, ChannelHandler pipeline) throws InterruptedException {
        ChannelGroup connections = new DefaultChannelGroup(name, group.next());
        Channel channel = new ServerBootstrap()
                .group(group)
                .channel(Transports.serverChannel())
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        connections.add(ch);
                        ch.pipeline().addLast(pipeline);
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .sync()
                .channel();
        connections.add(channel);
        return new LoopbackServer(channel, connections);
    }

    /** The bound loopback address. */
    InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    @Override
    public LocalDialer dialer() {
        return dialer;
    }

    /**
     * Stops listening and closes every open connection (the outbound ones close with their peer);
     * waits up to {@value #CLOSE_WAIT_SECONDS} s for that, unless called on an event loop.
     */
    @Override
    public void close() {
        ChannelGroupFuture closed = connections.close();
        for (EventExecutor loop : serverChannel.eventLoop().parent()) {
            if (loop.inEventLoop()) {
                return; // a loop may not wait for its own group
            }
        }
        closed.awaitUninterruptibly(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
    }

}
