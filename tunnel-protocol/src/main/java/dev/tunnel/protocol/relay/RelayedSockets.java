package dev.tunnel.protocol.relay;

import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelOption;

/**
 * The one place the options of a relayed socket are set: every public connection on the server
 * and every local-app connection on the client, in mux and in pool mode, whichever relay
 * ({@link dev.tunnel.protocol.mux.StreamRelay}, {@link PipeRelay}) joins it.
 * <ul>
 *   <li>{@code AUTO_READ} off: the relay reads only while the other side can take the bytes;</li>
 *   <li>{@code ALLOW_HALF_CLOSURE} on: EOF travels as a half-close, the answer can still come back;</li>
 *   <li>{@code TCP_NODELAY} on: the tunnel adds no delay of its own to small writes;</li>
 *   <li>{@link Transports#bulkReads()}: fewer, larger reads on a fast stream.</li>
 * </ul>
 */
public final class RelayedSockets {

    private RelayedSockets() {
    }

    /** Sets the options on a socket that exists (an accepted public connection, before or after registration). */
    public static void configure(ChannelConfig config) {
        config.setOption(ChannelOption.AUTO_READ, false);
        config.setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        config.setOption(ChannelOption.TCP_NODELAY, true);
        config.setOption(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads());
    }

    /** Sets the options on the sockets {@code bootstrap} will connect (local-app connections). */
    public static Bootstrap configure(Bootstrap bootstrap) {
        return bootstrap
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.RCVBUF_ALLOCATOR, Transports.bulkReads());
    }
}
