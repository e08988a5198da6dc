package dev.tunnel.client.plugin;

import dev.tunnel.client.proxy.tcp.TcpDialer;
import dev.tunnel.protocol.relay.PipeRelay;
import dev.tunnel.protocol.relay.RelayedSockets;
import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;

/**
 * The connection a plugin opens for a visitor ({@code http_proxy}, {@code socks5}: where the
 * visitor asks; {@code tls2raw}: {@code localAddr}), on the visitor connection's event loop, with
 * the relayed-socket options and an unjoined {@link PipeRelay} as its only handler, so the caller
 * joins the two sockets once it has answered the visitor.
 *
 * <p>{@code http_proxy} and {@code socks5} dial through {@link #open}, which resolves the name once
 * and checks the address against {@link Destinations} before connecting to it.
 *
 * <p>Names are resolved with Netty's asynchronous DNS resolver (which reads {@code /etc/hosts} and
 * {@code /etc/resolv.conf}), never with a blocking lookup on the event loop the tunnel shares.
 */
final class Outbound {

    /** Shared by every plugin; one resolver per event loop, created on first use. */
    static final DnsAddressResolverGroup RESOLVER = new DnsAddressResolverGroup(
            new DnsNameResolverBuilder().datagramChannelType(Transports.datagramChannel()));

    private Outbound() {
    }

    /** A dial under way: its future, and the relay end of its socket once the future succeeds. */
    record Dial(ChannelFuture future, PipeRelay[] end) {
        Channel channel() {
            return future.channel();
        }

        PipeRelay relay() {
            return end[0];
        }
    }

    /** Thrown (as a failed future) when {@link Destinations} refuses where a visitor asked to go. */
    static final class RefusedDestination extends Exception {
        RefusedDestination(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Resolves {@code host} once, checks the address against {@code allowed}, and connects to that
     * same address (Netty does not resolve an address that is resolved already). Fails with the
     * resolver's error, a {@link RefusedDestination}, or the connect's error.
     *
     * @param who how a refusal's log line names the connection and the plugin
     */
    static Future<Dial> open(EventLoop loop, String host, int port, Destinations allowed, String who) {
        Promise<Dial> promise = loop.newPromise();
        RESOLVER.getResolver(loop).resolve(InetSocketAddress.createUnresolved(host, port)).addListener(resolving -> {
            if (!resolving.isSuccess()) {
                promise.setFailure(resolving.cause());
                return;
            }
            InetSocketAddress resolved = (InetSocketAddress) resolving.getNow();
            String refusal = allowed.refusal(resolved);
            if (refusal != null) {
                Destinations.logRefusal(who, host + ":" + port, resolved, refusal);
                promise.setFailure(new RefusedDestination(host + ":" + port + " is " + refusal));
                return;
            }
            Dial dial = connect(loop, resolved);
            dial.future().addListener(connecting -> {
                if (connecting.isSuccess()) {
                    promise.setSuccess(dial);
                } else {
                    promise.setFailure(connecting.cause());
                }
            });
        });
        return promise;
    }

    /** Connects to {@code target} (resolved or not) on {@code loop}. */
    static Dial connect(EventLoop loop, InetSocketAddress target) {
        PipeRelay[] end = new PipeRelay[1];
        ChannelFuture future = RelayedSockets.configure(new Bootstrap())
                .group(loop)
                .channel(Transports.socketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, TcpDialer.CONNECT_TIMEOUT_MILLIS)
                .resolver(RESOLVER)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        end[0] = PipeRelay.attach(ch);
                    }
                })
                .connect(target);
        return new Dial(future, end);
    }
}
