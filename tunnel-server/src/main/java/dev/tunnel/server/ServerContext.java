package dev.tunnel.server;

/**
 * What every tunnel connection on the server shares: the settings it needs from the config,
 * the port registry, and the login pieces (credentials, authenticator, per-address throttle).
 * Immutable apart from the registry and the throttle, which are thread-safe.
 */
record ServerContext(String token, boolean tcpMux, PortRegistry ports, String proxyBindAddr, String version,
                     int loginTimeoutSeconds, Credentials credentials, LoginAuthenticator authenticator,
                     LoginThrottle throttle, int maxStreamsPerClient) {
}
