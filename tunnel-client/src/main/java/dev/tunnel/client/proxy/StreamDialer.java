package dev.tunnel.client.proxy;

import dev.tunnel.protocol.mux.MuxStream;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;

/**
 * A {@link LocalDialer} whose streams carry something other than a socket's bytes (datagrams):
 * it takes the stream itself instead of a {@code StreamRelay}: one of the session's, or in pool mode
 * one of the proxy's carrier session ({@code CarrierSession}) on a work connection.
 */
public interface StreamDialer {

    /**
     * Serves {@code stream}, opened by the server for a peer {@code source}, on {@code loop} (the
     * session's); every local socket it opens joins {@code localConns}. {@code udpPacketSize} is
     * the client's.
     */
    void accept(MuxStream stream, EventLoop loop, String source, ChannelGroup localConns, int udpPacketSize);
}
