package dev.tunnel.server;

/**
 * What every tunnel connection on the server shares: the settings it needs from the config,
 * and the port registry. Immutable apart from the registry, which is thread-safe.
 */
record ServerContext(String token, boolean tcpMux, PortRegistry ports, String proxyBindAddr, String version, int loginTimeoutSeconds) {
}
