package dev.tunnel.client.proxy;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;

/**
 * How one proxy's connections reach its local app: a new connection per public connection, with
 * {@code relay} (a {@code StreamRelay} in mux mode, a {@code PipeRelay} initializer in pool mode)
 * as its pipeline. Implementations set the socket options with {@code RelayedSockets}.
 */
public interface LocalDialer {

    /** Connects on {@code loop} (the loop of the stream or work connection it joins). */
    ChannelFuture connect(EventLoop loop, ChannelHandler relay);

    /**
     * This dialer with {@code transport.bandwidthLimitMode = "client"}: what its connections read
     * from the local app goes through {@code bucket}, shared by all of them.
     */
    default LocalDialer limitedBy(dev.tunnel.protocol.relay.TokenBucket bucket) {
        return new LimitedDialer(this, bucket);
    }

    /** Where it connects, for log lines ("127.0.0.1:22"). */
    String describe();
}
