package dev.tunnel.server.vhost;

import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.server.inbound.ProxyHeaderGate;
import dev.tunnel.server.inbound.TrustedSources;
import dev.tunnel.server.proxy.ConnectionLog;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;

/**
 * Builds the pipeline of a connection accepted on the vhost HTTP port ({@code vhostHTTPPort}),
 * and does nothing else: the connection joins {@code publicConns} (which the shutdown drain
 * waits on), then in order come its {@link ConnectionLog} line, the {@link ProxyHeaderGate} when
 * {@code proxyProtocolTrustedIPs} is set, Netty's request decoder ({@link RequestDecoder}) and
 * the {@link HttpVhostHandler} that routes each request.
 *
 * <p>Threading: {@link #initChannel} runs on the connection's event loop as it is registered.
 */
final class HttpVhostInitializer extends ChannelInitializer<SocketChannel> {
    private final VhostSettings settings;
    private final LoopAffinity affinity;
    private final ChannelGroup publicConns;
    private final TrustedSources trust;

    /** @param affinity told where each routed request went, so the port registers new connections there */
    HttpVhostInitializer(VhostSettings settings, LoopAffinity affinity, ChannelGroup publicConns, TrustedSources trust) {
        this.settings = settings;
        this.affinity = affinity;
        this.publicConns = publicConns;
        this.trust = trust;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        publicConns.add(ch);
        ConnectionLog.install(ch);
        ProxyHeaderGate.install(ch.pipeline(), trust);
        addHandlers(ch.pipeline(), settings, "http", affinity, true);
    }

    /**
     * Adds the request decoder and the vhost handler to {@code pipeline}.
     *
     * @param proto          what {@code X-Forwarded-Proto} says: "http"
     * @param affinity       told where each routed request went; may be null
     * @param scanPlainHeads false: every request head goes to Netty's decoder (for tests that compare the two)
     */
    static void addHandlers(ChannelPipeline pipeline, VhostSettings vhost, String proto, LoopAffinity affinity,
                            boolean scanPlainHeads) {
        pipeline.addLast(TunnelPipeline.HTTP_CODEC, new RequestDecoder(scanPlainHeads));
        pipeline.addLast(TunnelPipeline.VHOST, new HttpVhostHandler(vhost, proto, affinity));
    }
}
