package dev.tunnel.client.proxy;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.relay.ReadLimiter;
import dev.tunnel.protocol.relay.TokenBucket;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;

/**
 * {@code transport.bandwidthLimitMode = "client"}: every local-app connection of the proxy reads
 * through one shared {@link TokenBucket}, so the proxy as a whole sends at most
 * {@code transport.bandwidthLimit} toward the server. The limiter is in the pipeline before the
 * socket connects, so no read escapes it.
 */
public final class LimitedDialer implements LocalDialer {
    private final LocalDialer dialer;
    private final TokenBucket bucket;

    public LimitedDialer(LocalDialer dialer, TokenBucket bucket) {
        this.dialer = dialer;
        this.bucket = bucket;
    }

    @Override
    public ChannelFuture connect(EventLoop loop, ChannelHandler relay) {
        return dialer.connect(loop, new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(TunnelPipeline.BANDWIDTH, new ReadLimiter(bucket));
                ch.pipeline().addLast(relay);
            }
        });
    }

    @Override
    public String describe() {
        return dialer.describe();
    }
}
