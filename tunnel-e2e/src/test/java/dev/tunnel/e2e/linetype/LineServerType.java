package dev.tunnel.e2e.linetype;

import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.ProxyRefusedException;
import dev.tunnel.server.proxy.ProxyRequest;
import dev.tunnel.server.proxy.ProxySession;
import dev.tunnel.server.proxy.RunningProxy;
import dev.tunnel.server.proxy.ServerEnvironment;
import dev.tunnel.server.proxy.ServerProxyType;
import dev.tunnel.server.proxy.SessionLink;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server side of {@code type = "line"}: one listener for every session (opened with the
 * server), a route per running proxy ({@code route} option), and {@link LineRouter} on each
 * public connection to pick the route and hand the socket to its session's link.
 */
public final class LineServerType implements ServerProxyType {
    public static final String NAME = "line";

    private final Map<String, Route> routes = new ConcurrentHashMap<>();
    private Channel listener;

    /** A running proxy's route: where its public connections go. */
    record Route(SessionLink link, ProxyRef proxy) {
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void open(ServerEnvironment environment) throws InterruptedException {
        listener = new ServerBootstrap()
                .group(environment.workers())
                .channel(Transports.serverChannel())
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LineRouter(routes::get));
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    /** The shared public port. */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public Future<RunningProxy> start(ProxyRequest request, ProxySession session) {
        String route = request.options().string("route", "");
        if (route.isEmpty()) {
            return session.link().eventLoop().newFailedFuture(new ProxyRefusedException("route: missing"));
        }
        if (routes.putIfAbsent(route, new Route(session.link(), request.proxy())) != null) {
            return session.link().eventLoop().newFailedFuture(
                    new ProxyRefusedException("route \"" + route + "\" is taken by another proxy"));
        }
        RunningProxy running = new RunningProxy() {
            @Override
            public int remotePort() {
                return 0;
            }

            @Override
            public Options details() {
                return Options.of("listenerPort", Integer.toString(port()));
            }

            @Override
            public Future<?> close() {
                routes.remove(route);
                return session.link().eventLoop().newSucceededFuture(null);
            }
        };
        return session.link().eventLoop().newSucceededFuture(running);
    }

    @Override
    public void close() {
        if (listener != null) {
            listener.close().syncUninterruptibly();
        }
    }
}
