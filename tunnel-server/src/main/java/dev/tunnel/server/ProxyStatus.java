package dev.tunnel.server;

import dev.tunnel.protocol.relay.TrafficCounter;

/**
 * One running proxy on the server as a status page shows it.
 *
 * @param session    the client session id
 * @param user       the client's user, "" for the shared token
 * @param remotePort its public port, 0 for a type without one
 * @param traffic    bytes read from and written to its public connections, connections total and open
 */
public record ProxyStatus(String session, String user, String name, String type, int remotePort,
                          TrafficCounter.Snapshot traffic) {
}
