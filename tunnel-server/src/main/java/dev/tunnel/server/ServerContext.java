package dev.tunnel.server;

import io.netty.channel.EventLoopGroup;

/**
 * What every tunnel connection on the server shares: the settings it needs from the config,
 * the port registry and the accept loop. Immutable apart from the registry, which is thread-safe.
 */
record ServerContext(String token, boolean tcpMux, PortRegistry ports, EventLoopGroup acceptGroup,
                     String proxyBindAddr, String version, int loginTimeoutSeconds) {
}
