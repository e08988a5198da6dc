package dev.tunnel.client.plugin;

import dev.tunnel.client.proxy.LocalDialer;

/**
 * A running {@code [proxies.plugin]}: how the proxy's connections reach it ({@link #dialer()}),
 * started with its proxy and closed with it. Plugins that speak a protocol run as a loopback server
 * the dialer connects to; {@code unix_domain_socket} is only a dialer.
 *
 * <p>Threading: {@link #close()} may be called from any thread.
 */
public interface LocalPlugin extends AutoCloseable {

    /** How a connection of the proxy reaches the plugin. */
    LocalDialer dialer();

    /** Stops accepting and closes the plugin's open connections. */
    @Override
    void close();
}
