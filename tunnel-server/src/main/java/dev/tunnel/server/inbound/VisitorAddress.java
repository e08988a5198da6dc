package dev.tunnel.server.inbound;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Who a public connection is from: the address a trusted balancer's PROXY header named
 * ({@link ProxyHeaderGate} sets it), else the socket's peer. Every place that logs, limits,
 * forwards (X-Forwarded-For, the PROXY header to the local app) or shows a visitor reads it here.
 *
 * <p>Threading: any thread (a channel attribute).
 */
public final class VisitorAddress {
    private static final AttributeKey<InetSocketAddress> KEY = AttributeKey.valueOf(VisitorAddress.class, "visitor");

    private VisitorAddress() {
    }

    /** The visitor of {@code publicConn}. */
    public static SocketAddress of(Channel publicConn) {
        InetSocketAddress named = publicConn.attr(KEY).get();
        return named != null ? named : publicConn.remoteAddress();
    }

    /** The visitor's IP address, or null when it has none (not an IP socket). */
    public static InetAddress ipOf(Channel publicConn) {
        return of(publicConn) instanceof InetSocketAddress a ? a.getAddress() : null;
    }

    /** Records the visitor a trusted balancer named for {@code publicConn}. */
    static void set(Channel publicConn, InetSocketAddress visitor) {
        publicConn.attr(KEY).set(visitor);
    }
}
