package dev.tunnel.client;

import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.relay.TrafficCounter;
import java.util.List;

/**
 * A proxy as the client runs it: its id on the wire (stable for the proxy's life), its type and
 * the options its {@code NEW_PROXY} carries (from the type), how its connections reach the local
 * app, their traffic (bytes read from and written to the local app, connections), and the
 * capabilities the server must have announced for it to work as configured ({@code proxy.TYPE}
 * and those of its other keys).
 */
record ProxyTarget(int id, String name, String type, Options options, LocalDialer dialer, TrafficCounter traffic,
                   List<String> needs) {
}
