package dev.tunnel.client;

import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.protocol.Options;

/**
 * A proxy as the client runs it: its id on the wire (stable for the proxy's life), its type and
 * the options its {@code NEW_PROXY} carries (from the type), and how its connections reach the
 * local app.
 */
record ProxyTarget(int id, String name, String type, Options options, LocalDialer dialer) {
}
