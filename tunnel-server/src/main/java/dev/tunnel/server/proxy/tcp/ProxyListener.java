package dev.tunnel.server.proxy.tcp;

import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.server.Listeners;
import dev.tunnel.server.proxy.SessionLink;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import dev.tunnel.server.inbound.ProxyHeaderGate;
import dev.tunnel.server.inbound.TrustedSources;

/**
 * The public port of one tcp proxy, or of a load-balancing group. Every accepted connection goes,
 * before it is registered, to the {@code sink}: a proxy's session's {@link SessionLink}, which
 * registers it where its relay runs (mux: the session loop, as a new stream whose OPEN and first
 * bytes go out at once; pool: the loop of the work connection it rides), or a {@link TcpGroup},
 * which picks a member first. When the server trusts balancers ({@code proxyProtocolTrustedIPs}),
 * every connection is registered on the session loop first and handed on only once
 * {@link ProxyHeaderGate} let it through ({@link HeaderHandoff}): from a balancer once its PROXY
 * header is in, from any other address once its first bytes are no header (or it stayed silent
 * a moment); a connection refused there never opened a stream or asked for a work connection.
 *
 * <p>Threading: the listening socket lives on the opening session's event loop.
 */
final class ProxyListener {
    private final SessionLink link;
    private final ConnectionSink sink;
    private final TrustedSources trust;

    /** A listener on {@code link}'s loop whose connections go to {@code sink}. */
    ProxyListener(SessionLink link, ConnectionSink sink, TrustedSources trust) {
        this.link = link;
        this.sink = sink;
        this.trust = trust;
    }

    /** Binds the listening socket; the future's channel is it ({@link dev.tunnel.server.proxy.PublicPortBinding} closes it). */
    ChannelFuture bind(String host, int port) {
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(link.eventLoop(), link.eventLoop())
                .channel(Transports.serverChannel())
                .option(ChannelOption.SO_BACKLOG, Listeners.BACKLOG)
                .option(ChannelOption.SO_REUSEADDR, true)
                .handler(new Acceptor())
                .childHandler(new ChannelInboundHandlerAdapter()); // never reached: Acceptor takes every child
        return bootstrap.bind(host, port);
    }

    /** On the listening socket's pipeline: hands each accepted socket to the link before the bootstrap sees it. */
    private final class Acceptor extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Channel child = (Channel) msg;
            if (!trust.enabled()) {
                sink.accept(child);
                return;
            }
            ProxyHeaderGate.install(child.pipeline(), trust);
            child.config().setAutoRead(false);
            child.pipeline().addLast(HeaderHandoff.NAME, new HeaderHandoff(sink));
            link.eventLoop().register(child).addListener(f -> {
                if (!f.isSuccess()) {
                    child.unsafe().closeForcibly();
                }
            });
        }
    }
}
