package dev.tunnel.protocol.transport;

import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.uring.IoUringChannelOption;
import jdk.net.ExtendedSocketOptions;

/**
 * TCP keep-alive on the connections between client and server, as frp's
 * {@code transport.dialServerKeepalive} (client) and {@code transport.tcpKeepalive} (server) set
 * it: like Go's dialer, a positive value is both the idle time before the first probe and the
 * interval between probes, in seconds; a negative one switches keep-alive off; 0 means frp's
 * default, 7200.
 */
public final class KeepAlive {
    /** frp's default for both keys. */
    public static final int DEFAULT_SECONDS = 7200;

    private KeepAlive() {
    }

    /** Sets keep-alive on the channels {@code bootstrap} opens (a client's connections). */
    public static void apply(AbstractBootstrap<?, ?> bootstrap, int seconds) {
        if (seconds < 0) {
            bootstrap.option(ChannelOption.SO_KEEPALIVE, false);
            return;
        }
        int s = seconds == 0 ? DEFAULT_SECONDS : seconds;
        bootstrap.option(ChannelOption.SO_KEEPALIVE, true);
        bootstrap.option(idle(), s);
        bootstrap.option(interval(), s);
    }

    /** Sets keep-alive on the connections {@code bootstrap}'s listener accepts. */
    public static void applyToChildren(ServerBootstrap bootstrap, int seconds) {
        if (seconds < 0) {
            bootstrap.childOption(ChannelOption.SO_KEEPALIVE, false);
            return;
        }
        int s = seconds == 0 ? DEFAULT_SECONDS : seconds;
        bootstrap.childOption(ChannelOption.SO_KEEPALIVE, true);
        bootstrap.childOption(idle(), s);
        bootstrap.childOption(interval(), s);
    }

    private static ChannelOption<Integer> idle() {
        return switch (Transports.current().kind()) {
            case EPOLL -> EpollChannelOption.TCP_KEEPIDLE;
            case IO_URING -> IoUringChannelOption.TCP_KEEPIDLE;
            case NIO -> NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE);
        };
    }

    private static ChannelOption<Integer> interval() {
        return switch (Transports.current().kind()) {
            case EPOLL -> EpollChannelOption.TCP_KEEPINTVL;
            case IO_URING -> IoUringChannelOption.TCP_KEEPINTVL;
            case NIO -> NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPINTERVAL);
        };
    }
}
