package dev.tunnel.client.plugin;

import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.client.proxy.tcp.TcpDialer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * frp's {@code static_file} plugin: an HTTP/1.1 file server on {@code 127.0.0.1}, port chosen by the
 * OS, that a proxy forwards to like any local app. Serves GET and HEAD from {@code localPath}
 * (directory listings, index.html, single byte ranges), optionally behind HTTP Basic auth.
 *
 * <p>It is plaintext because it only listens on loopback; the tunnel carries it over TLS. Files go
 * out zero-copy as file regions. Thread-safe: {@link #close()} may be called from any thread.
 */
public final class StaticFileServer implements LocalPlugin {

    private final Channel serverChannel;
    private final ChannelGroup connections;

    private StaticFileServer(Channel serverChannel, ChannelGroup connections) {
        this.serverChannel = serverChannel;
        this.connections = connections;
    }

    /**
     * Binds 127.0.0.1:0 on the given group; returns once bound.
     *
     * @param stripPrefix  leading path a request must carry, removed before the lookup
     *                     ({@code "static"}: {@code /static/a.txt} serves {@code localPath/a.txt}); empty for none
     * @param httpUser     Basic auth user; when it and {@code httpPassword} are both empty, no auth
     * @throws IllegalArgumentException when {@code localPath} is not an existing directory
     */
    public static StaticFileServer start(EventLoopGroup group, Class<? extends ServerChannel> channelClass,
                                         Path localPath, String stripPrefix, String httpUser, String httpPassword)
            throws InterruptedException {
        RequestPaths paths = new RequestPaths(localPath, stripPrefix);
        BasicAuth auth = BasicAuth.of(httpUser, httpPassword);
        ChannelGroup connections = new DefaultChannelGroup("static_file " + paths.root(), group.next());
        Channel channel = new ServerBootstrap()
                .group(group)
                .channel(channelClass)
                .childOption(ChannelOption.AUTO_READ, false) // StaticFileHandler reads one request at a time.
                .childHandler(new StaticFileServerInitializer(paths, auth, connections))
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .sync()
                .channel();
        connections.add(channel);
        return new StaticFileServer(channel, connections);
    }

    /** The bound loopback address to forward to. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    @Override
    public LocalDialer dialer() {
        return new TcpDialer(localAddress());
    }

    /** Stops listening and closes every open connection; waits until they are closed. */
    @Override
    public void close() {
        connections.close().syncUninterruptibly();
    }
}
