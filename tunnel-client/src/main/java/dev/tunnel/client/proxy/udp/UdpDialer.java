package dev.tunnel.client.proxy.udp;

import dev.tunnel.client.proxy.LocalDialer;
import dev.tunnel.client.proxy.StreamDialer;
import dev.tunnel.protocol.mux.MuxStream;
import dev.tunnel.protocol.transport.Failures;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.protocol.udp.UdpDrops;
import dev.tunnel.protocol.udp.UdpLimits;
import dev.tunnel.protocol.udp.UdpLocalRelay;
import dev.tunnel.protocol.udp.UdpQueueBudget;
import dev.tunnel.protocol.udp.UdpSockets;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.relay.TokenBucket;
import dev.tunnel.protocol.udp.DatagramLimiter;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.channel.group.ChannelGroup;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The home end of a udp (or sudp) proxy's associations: for each stream the server opens (on the
 * session's mux connection, or in pool mode on the proxy's carrier work connection), a UDP
 * socket of its own connected to the local app ({@link UdpLocalRelay}), so each peer's replies
 * come back on its own association. Datagrams longer than {@code udpPacketSize} are dropped.
 *
 * <p>Threading: {@link #accept} runs on the session's loop; the sockets are registered on it,
 * and the drop counters are used there only.
 */
public final class UdpDialer implements LocalDialer, StreamDialer {
    private static final Logger log = LoggerFactory.getLogger(UdpDialer.class);

    private final String name;
    private final InetSocketAddress local;
    private final UdpDrops drops;
    private final TokenBucket bucket;
    private final UdpQueueBudget budget = UdpQueueBudget.perProxy();

    public UdpDialer(String name, InetSocketAddress local) {
        this(name, local, null);
    }

    private UdpDialer(String name, InetSocketAddress local, TokenBucket bucket) {
        this.name = name;
        this.local = local;
        this.drops = new UdpDrops(log, "proxy [" + name + "]");
        this.bucket = bucket;
    }

    /** Datagrams from the local app over the limit are dropped ({@link DatagramLimiter}): what visitors receive. */
    @Override
    public LocalDialer limitedBy(TokenBucket bucket) {
        return new UdpDialer(name, local, bucket);
    }

    @Override
    public void accept(MuxStream stream, EventLoop loop, String source, ChannelGroup localConns, int size) {
        UdpLocalRelay relay = new UdpLocalRelay(stream, size, drops, budget, UdpLimits.LOCAL_IDLE_NANOS);
        ChannelFuture connecting = UdpSockets.configure(new Bootstrap(), Transports.datagramChannel(), size)
                .group(loop)
                .channel(Transports.datagramChannel())
                .handler(bucket == null ? relay : new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(TunnelPipeline.BANDWIDTH, new DatagramLimiter(bucket, drops));
                        ch.pipeline().addLast(relay);
                    }
                })
                .connect(local);
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                relay.connectFailed();
                log.warn("proxy [{}] cannot open a UDP socket to local app {}: {} (association of {} closed)", name,
                        local, Failures.describe(f.cause()), source);
            } else {
                UdpSockets.checkBuffers(connecting.channel());
            }
        });
        localConns.add(connecting.channel());
    }

    /**
     * Never called: datagrams ride streams in both modes (in pool mode those of the proxy's
     * carrier session on a work connection), never a socket's pipe.
     */
    @Override
    public ChannelFuture connect(EventLoop loop, ChannelHandler relay) {
        throw new UnsupportedOperationException("udp proxies carry datagrams on streams, not on a socket's pipe");
    }

    @Override
    public String describe() {
        return local + " (UDP)";
    }
}
