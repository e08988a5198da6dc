package dev.tunnel.server;

import dev.tunnel.server.plugin.ServerPlugins;
import dev.tunnel.server.proxy.ServerProxyTypes;
import dev.tunnel.server.web.ServerStats;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;

/**
 * What every tunnel connection on the server shares: the settings it needs from the config,
 * the port registry, the login pieces (credentials, authenticator, per-address throttle), the
 * logged-in sessions, the open public connections (for the drain at shutdown) and their caps, and
 * the table the dashboard and API read ({@link ServerStats}). Immutable apart from the port
 * registry, the throttle, the sessions, the connections, the caps and the stats, which are
 * thread-safe.
 *
 * @param pool  pool-mode settings ({@code tcpMux = false})
 * @param types the proxy types this server carries
 * @param visitorThrottle per-address backoff after wrong visitor secret keys (apart from the login one)
 * @param stats what the dashboard, the REST API and /metrics show
 * @param caps  public connections per proxy and per remote address
 * @param plugins the {@code [[httpPlugins]]} asked before logins, proxies and connections go ahead
 * @param names the proxy names taken over every session, and {@code maxProxiesPerClient}
 */
record ServerContext(String token, boolean tcpMux, PortRegistry ports, String proxyBindAddr, String version,
                     int loginTimeoutSeconds, Credentials credentials, LoginAuthenticator authenticator,
                     LoginThrottle throttle, int maxStreamsPerClient, PoolSettings pool, SessionRegistry sessions,
                     ChannelGroup publicConns, ServerProxyTypes types, LoginThrottle visitorThrottle,
                     ServerStats stats, ConnectionCaps caps, boolean detailedErrors,
                     ServerPlugins plugins, ProxyNames names) {

    /**
     * @param maxPoolCount           most idle work connections kept per client
     * @param userConnTimeoutSeconds how long a public connection waits for a work connection
     * @param keepaliveSeconds       interval of the pings sent on idle work connections
     */
    record PoolSettings(int maxPoolCount, int userConnTimeoutSeconds, int keepaliveSeconds) {
    }
}
