package dev.tunnel.protocol.relay;

import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.internal.PlatformDependent;

/**
 * The one place the options of a relayed socket are set: every public connection on the server
 * and every local-app connection on the client, in mux and in pool mode, whichever relay
 * ({@link dev.tunnel.protocol.relay.StreamRelay}, {@link PipeRelay}) joins it.
 * <ul>
 *   <li>{@code AUTO_READ} off: the relay reads only while the other side can take the bytes;</li>
 *   <li>{@code ALLOW_HALF_CLOSURE} on: EOF travels as a half-close, the answer can still come back;</li>
 *   <li>{@code TCP_NODELAY} on: the tunnel adds no delay of its own to small writes (Netty's socket
 *       configs turn it on where the platform allows, which is every platform the tunnel runs on;
 *       setting it again would cost each socket a {@code setsockopt} call);</li>
 *   <li>{@link Transports#bulkReads()}: fewer, larger reads on a fast stream.</li>
 * </ul>
 */
public final class RelayedSockets {

    /** Netty's socket configs already set TCP_NODELAY (Linux, macOS: everywhere but Android). */
    private static final boolean NODELAY_BY_DEFAULT = PlatformDependent.canEnableTcpNoDelayByDefault();

    private RelayedSockets() {
    }

    /** Sets the options on a socket that exists (an accepted public connection, before or after registration). */
    public static void configure(ChannelConfig config) {
        config.setOption(ChannelOption.AUTO_READ, false);
        config.setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        if (!NODELAY_BY_DEFAULT) {
            config.setOption(ChannelOption.TCP_NODELAY, true);
        }
        config.setOption(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads());
    }

    /** Sets the options on the sockets {@code bootstrap} will connect (local-app connections). */
    public static Bootstrap configure(Bootstrap bootstrap) {
        return bootstrap
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.TCP_NODELAY, NODELAY_BY_DEFAULT ? null : Boolean.TRUE)
                .option(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads());
    }

    /**
     * For a socket handed to a relay after other handlers read from it (a connection routed by its
     * first bytes, then moved or carried): when its EOF came before the relay was there, tells the
     * relay now, so the far side gets its FIN. Call on the socket's loop, relay in place.
     */
    public static void replayEarlyEof(Channel socket) {
        if (socket instanceof DuplexChannel duplex && duplex.isInputShutdown() && socket.isActive()) {
            socket.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        }
    }
}
