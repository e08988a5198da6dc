package dev.tunnel.client;

import java.net.InetSocketAddress;

/**
 * A proxy as the client runs it: its id on the wire, the public port it asks for (or, for a secret
 * proxy, its key and allowed users), and where its streams go (the local app, or the built-in plugin
 * server).
 */
record ProxyTarget(int id, String name, String type, int remotePort, InetSocketAddress local, String secretKey,
                   java.util.List<String> allowUsers) {
    @Override
    public String toString() {
        return "proxy [" + name + "] (" + type + ")"; // never the secret key
    }
}
