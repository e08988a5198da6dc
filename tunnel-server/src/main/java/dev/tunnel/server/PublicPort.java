package dev.tunnel.server;

import io.netty.channel.ChannelFuture;

/** A proxy's public port on the server: TCP ({@link ProxyListener}) or UDP ({@link UdpProxyListener}). */
interface PublicPort {
    /** The port it is bound to. */
    int port();

    /** The proxy's name as logs show it. */
    String name();

    /** Closes the port; returns the close future, or null if it was never bound. */
    ChannelFuture close();
}
