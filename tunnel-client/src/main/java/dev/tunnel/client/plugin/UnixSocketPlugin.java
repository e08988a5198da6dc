package dev.tunnel.client.plugin;

import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.client.proxy.tcp.TcpDialer;
import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.uring.IoUringDomainSocketChannel;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;

/**
 * frp's {@code unix_domain_socket} plugin: each connection of the proxy becomes a connection to the
 * socket at {@code unixPath} (the Docker API at {@code /var/run/docker.sock}, a database's socket),
 * relayed like a TCP local app, with the same flow control and half-close.
 *
 * <p>No listener of any kind: a TCP port on loopback would hand the socket to every local user,
 * where the socket file's permissions may allow only some. The socket is opened with the transport
 * the client runs on (epoll, io_uring, or NIO's Unix sockets off Linux). A missing socket, or one this
 * user may not open, fails that connection only: the client logs, once per burst, the path and the
 * system's reason ({@code unix:/var/run/docker.sock: ... No such file or directory}).
 *
 * <p>Threading: {@link #connect} is called on event loops; the plugin is immutable.
 */
final class UnixSocketPlugin implements LocalPlugin, LocalDialer {

    private final Path path;

    UnixSocketPlugin(Path path) {
        this.path = path;
    }

    @Override
    public ChannelFuture connect(EventLoop loop, ChannelHandler relay) {
        Class<? extends Channel> type;
        SocketAddress address;
        switch (Transports.current().kind()) {
            case EPOLL -> {
                type = EpollDomainSocketChannel.class;
                address = new DomainSocketAddress(path.toString());
            }
            case IO_URING -> {
                type = IoUringDomainSocketChannel.class;
                address = new DomainSocketAddress(path.toString());
            }
            default -> {
                type = NioDomainSocketChannel.class;
                address = UnixDomainSocketAddress.of(path);
            }
        }
        return new Bootstrap()
                .group(loop)
                .channel(type)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, TcpDialer.CONNECT_TIMEOUT_MILLIS)
                .option(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads())
                .handler(relay)
                .connect(address);
    }

    @Override
    public String describe() {
        return "unix:" + path;
    }

    @Override
    public LocalDialer dialer() {
        return this;
    }

    @Override
    public void close() {
        // Nothing of its own: the connections belong to the session and close with their streams.
    }
}
