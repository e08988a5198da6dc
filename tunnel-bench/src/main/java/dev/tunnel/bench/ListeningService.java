package dev.tunnel.bench;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** A bench service that owns its event loops and one listening socket: its port, a wait for its end, and a stop. */
abstract class ListeningService implements AutoCloseable {
    private final EventLoopGroup group;
    private final Channel listener;

    ListeningService(EventLoopGroup group, Channel listener) {
        this.group = group;
        this.listener = listener;
    }

    public int port() {
        return address().getPort();
    }

    InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    /** Blocks until the listening socket is closed (a {@code main} that serves until stopped). */
    void awaitClosed() throws InterruptedException {
        listener.closeFuture().sync();
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + " on " + address();
    }
}
