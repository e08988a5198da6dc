package dev.tunnel.client;

import dev.tunnel.protocol.Options;
import java.util.List;

/**
 * Who this client says it is at login, the transport mode it asks for, and what it can do
 * ({@code dev.tunnel.protocol.Capabilities}: the base ones and one per registered proxy type), and
 * the login's options ({@code clientID}, {@code metadatas.*}).
 */
record ClientIdentity(String version, String hostname, String runId, String token, boolean tcpMux, int poolCount,
                      List<String> capabilities, Options loginOptions) {
}
