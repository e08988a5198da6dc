package dev.tunnel.server.vhost;

import dev.tunnel.protocol.relay.RelayCounter;
import dev.tunnel.server.proxy.AppConnection;
import dev.tunnel.server.proxy.SessionLink;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.function.Consumer;

/**
 * A registered {@code http} or {@code https} proxy as the vhost ports see it: where its streams
 * are opened. Implemented by the client session that registered it.
 *
 * <p>Threading: {@link #open} runs on {@link #eventLoop()}, the loop of the proxy's session; a
 * public connection is moved there before it opens a connection to the proxy, and then to that
 * connection's loop ({@link ChannelMover}). {@link #carry} may be called on the connection's
 * own loop.
 */
public interface VhostTarget {

    /** The proxy's name as logs show it ({@code user.name}). */
    String name();

    /** The loop of the proxy's client session. */
    EventLoop eventLoop();

    /**
     * Admits {@code publicChannel} (registered on {@link #eventLoop()}) to the proxy against the
     * session's and the proxy's limits ({@code maxStreamsPerClient}, {@code maxConnectionsPerProxy},
     * {@code maxConnectionsPerIP}) and counts it as one of the proxy's public connections until it
     * closes; false (logged) when refused. Once per public connection and proxy, before its first
     * {@link #open} or idle connection.
     */
    boolean admit(Channel publicChannel);

    /**
     * Opens a connection to the proxy's local app for {@code publicChannel} (registered on
     * {@link #eventLoop()}, admitted), with the PROXY protocol header already written when the proxy asks
     * for one: a stream in mux mode, a work connection in pool mode ({@link SessionLink#open}).
     * {@code opened} gets it, or null when it cannot (the session is gone, or no
     * work connection came in time: logged by the target), possibly later and on the
     * connection's own loop, where the caller moves {@code publicChannel} before using it.
     */
    void open(Channel publicChannel, Consumer<AppConnection> opened);

    /**
     * Carries {@code publicConn} as raw bytes to the local app (an https proxy routed by SNI):
     * registered on any loop with {@code AUTO_READ} off and nothing left in its pipeline;
     * {@code firstBytes} (ownership passes) are what was read from it already, sent first.
     */
    void carry(Channel publicConn, ByteBuf firstBytes);

    /** The idle connections to the proxy's app kept for its next requests ({@code http} proxies). */
    IdleUpstreams idle();

    /** Where the bytes of its requests and responses are counted (the proxy's traffic). */
    RelayCounter traffic();
}
