package dev.tunnel.client.proxy;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.config.ValueChecks;
import dev.tunnel.protocol.Options;
import java.net.InetSocketAddress;

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
     * {@code localIP:localPort}, or the address of the built-in plugin serving it).
     */
    LocalDialer dialer(ProxyConfig proxy, InetSocketAddress local);
}
