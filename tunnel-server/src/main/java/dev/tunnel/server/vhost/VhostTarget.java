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
     * Opens a connection to the proxy's local app for {@code publicChannel} (registered on
     * {@link #eventLoop()}), with the PROXY protocol header already written when the proxy asks
     * for one: a stream in mux mode, a work connection in pool mode ({@link SessionLink#open}).
     * {@code opened} gets it, or null when it cannot (the session is gone, at its limits, or no
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

    /** Where the bytes of its requests and responses are counted (the proxy's traffic). */
    RelayCounter traffic();
}
