package dev.tunnel.server.vhost;

import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.relay.RelayCounter;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;

/**
 * A registered {@code http} or {@code https} proxy as the vhost ports see it: where its streams
 * are opened. Implemented by the client session that registered it.
 *
 * <p>Threading: {@link #openStream} runs on {@link #eventLoop()}, the loop of the proxy's
 * session; a public connection is moved there before it uses one of the proxy's streams
 * ({@link ChannelMover}). {@link #carry} may be called on the connection's own loop.
 */
public interface VhostTarget {

    /** The proxy's name as logs show it ({@code user.name}). */
    String name();

    /** The loop of the proxy's client session. */
    EventLoop eventLoop();

    /**
     * Opens a stream to the proxy's local app for {@code publicChannel} (registered on
     * {@link #eventLoop()}), with the PROXY protocol header already written when the proxy asks
     * for one; null when it cannot (the session is gone or at {@code transport.maxStreamsPerClient}:
     * logged by the target).
     */
    MuxStream openStream(Channel publicChannel);

    /**
     * Carries {@code publicConn} as raw bytes to the local app (an https proxy routed by SNI):
     * registered on any loop with {@code AUTO_READ} off and nothing left in its pipeline;
     * {@code firstBytes} (ownership passes) are what was read from it already, sent first.
     */
    void carry(Channel publicConn, ByteBuf firstBytes);

    /** Where the bytes of its requests and responses are counted (the proxy's traffic). */
    RelayCounter traffic();
}
