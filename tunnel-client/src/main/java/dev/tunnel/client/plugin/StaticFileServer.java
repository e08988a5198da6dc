package dev.tunnel.client.plugin;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/** TEMPORARY stand-in until the plugin lands. */
public final class StaticFileServer implements AutoCloseable {
    public static StaticFileServer start(EventLoopGroup group, Class<? extends ServerChannel> channelClass,
            Path localPath, String stripPrefix, String httpUser, String httpPassword) throws InterruptedException {
        throw new UnsupportedOperationException();
    }

    public InetSocketAddress localAddress() {
        return null;
    }

    public void close() {
    }
}
