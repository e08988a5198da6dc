package dev.tunnel.client;

import java.net.InetSocketAddress;

/**
 * A proxy as the client runs it: its id on the wire, the public port it asks for, and where its
 * streams go (the local app, or the built-in plugin server).
 */
record ProxyTarget(int id, String name, String type, int remotePort, InetSocketAddress local) {
}
