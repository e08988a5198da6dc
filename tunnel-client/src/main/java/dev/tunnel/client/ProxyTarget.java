package dev.tunnel.client;

import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.relay.TrafficCounter;

/**
 * A proxy as the client runs it: its id on the wire (stable for the proxy's life), its type and
 * the options its {@code NEW_PROXY} carries (from the type), how its connections reach the local
 * app, and their traffic (bytes read from and written to the local app, connections).
 */
record ProxyTarget(int id, String name, String type, Options options, LocalDialer dialer, TrafficCounter traffic) {
}
