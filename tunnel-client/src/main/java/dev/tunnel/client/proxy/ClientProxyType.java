package dev.tunnel.client.proxy;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.tcp.TcpDialer;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.relay.Bandwidth;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * One proxy type on the client ({@code tcp}, {@code http}, {@code udp}...): which keys of a
 * {@code [[proxies]]} entry it reads, what its {@code NEW_PROXY} tells the server, and how a
 * connection the server carries for it reaches the local app. Registered once in
 * {@link ClientProxyTypes#standard()}; the same name must be registered on the server
 * ({@code ServerProxyType}), which announces {@code proxy.NAME} at login.
 *
 * <p>Threading: {@link #validate} runs while a config is loaded ({@code verify} too),
 * {@link #options} and {@link #dialer} when the client starts or changes a proxy; the
 * {@link LocalDialer} they return runs on event loops.
 */
public interface ClientProxyType {

    /** The type's name, as in {@code type = "tcp"}. */
    String name();

    /**
     * Checks the keys this type reads in one {@code [[proxies]]} entry at {@code key} (e.g.
     * {@code proxies[2]}), adding every problem; keys common to every type ({@code name},
     * {@code type}, {@code localIP}/{@code localPort}/{@code plugin}) are checked already.
     */
    void validate(ProxyConfig proxy, String key, ValueChecks checks);

    /** The options {@code NEW_PROXY} carries for {@code proxy} (frp key names). */
    Options options(ProxyConfig proxy);

    /**
     * How connections of {@code proxy} reach the local app at {@code local} (its
     * {@code localIP:localPort}, or the address of the built-in plugin serving it): by default
     * a TCP connection per carried connection.
     */
    default LocalDialer dialer(ProxyConfig proxy, InetSocketAddress local) {
        return new TcpDialer(local);
    }

    /**
     * The port space of {@code remotePort} for this type: {@code "tcp"}, {@code "udp"} (apart from
     * TCP's, as in frp), or null for a type without a public port (a {@code remotePort} is then an
     * error). Two proxies of one space may not ask for the same port.
     */
    default String portSpace() {
        return "tcp";
    }

    /**
     * The {@code transport.bandwidthLimitMode}s this type can enforce a
     * {@code transport.bandwidthLimit} in: "client" paces reads from the local app's TCP
     * connections, "server" reads from the server's public TCP connections. Empty: the type
     * cannot be limited (a limit is then an error).
     */
    default List<String> bandwidthLimitModes() {
        return List.of(Bandwidth.MODE_CLIENT, Bandwidth.MODE_SERVER);
    }

    /**
     * Whether the type needs {@code transport.tcpMux = true}: its visitors' streams are spliced to
     * streams of its session (stcp, sudp). udp rides streams in pool mode too, on a work connection of its own.
     */
    default boolean needsMux() {
        return false;
    }
}
