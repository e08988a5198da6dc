package dev.tunnel.server;

import dev.tunnel.server.proxy.ServerProxyTypes;
import io.netty.channel.group.ChannelGroup;

/**
 * What every tunnel connection on the server shares: the settings it needs from the config,
 * the port registry, the login pieces (credentials, authenticator, per-address throttle), the
 * logged-in sessions and the open public connections (for the drain at shutdown). Immutable
 * apart from the port registry, the throttle, the sessions and the connections, which are thread-safe.
 *
 * @param pool  pool-mode settings ({@code tcpMux = false})
 * @param types the proxy types this server carries
 */
record ServerContext(String token, boolean tcpMux, PortRegistry ports, String proxyBindAddr, String version,
                     int loginTimeoutSeconds, Credentials credentials, LoginAuthenticator authenticator,
                     LoginThrottle throttle, int maxStreamsPerClient, PoolSettings pool, SessionRegistry sessions,
                     ChannelGroup publicConns, ServerProxyTypes types) {

    /**
     * @param maxPoolCount           most idle work connections kept per client
     * @param userConnTimeoutSeconds how long a public connection waits for a work connection
     * @param keepaliveSeconds       interval of the pings sent on idle work connections
     */
    record PoolSettings(int maxPoolCount, int userConnTimeoutSeconds, int keepaliveSeconds) {
    }
}
