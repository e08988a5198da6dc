package dev.tunnel.client.plugin;

import dev.tunnel.runtime.BurstLog;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import org.slf4j.LoggerFactory;

/**
 * Assembles one connection of an HTTP bridge plugin and nothing else:
 * {@code [tls ->] headDeadline -> codec -> httpBridge}; TLS (the https2* plugins) is the
 * conditional first handler. The codec bounds the request line to 4 KiB and the headers to 8 KiB;
 * bodies stream through, never aggregated.
 */
final class HttpBridgeInitializer extends ChannelInitializer<Channel> {
    static final String CODEC = "codec";

    private final HttpBridge bridge;
    private final SslContext visitorTls;
    private final long headDeadlineMillis;
    private final BurstLog unreachable = new BurstLog(LoggerFactory.getLogger(HttpBridgeHandler.class));

    /** @param visitorTls the certificate visitors see (https2*), null for plain HTTP (http2*) */
    HttpBridgeInitializer(HttpBridge bridge, SslContext visitorTls, long headDeadlineMillis) {
        this.bridge = bridge;
        this.visitorTls = visitorTls;
        this.headDeadlineMillis = headDeadlineMillis;
    }

    @Override
    protected void initChannel(Channel ch) {
        if (visitorTls != null) {
            ch.pipeline().addLast("tls", visitorTls.newHandler(ch.alloc()));
        }
        ch.pipeline().addLast(HeadDeadline.NAME, new HeadDeadline(headDeadlineMillis));
        ch.pipeline().addLast(CODEC, new HttpServerCodec(StaticFileServerInitializer.MAX_INITIAL_LINE,
                StaticFileServerInitializer.MAX_HEADER_SIZE, StaticFileServerInitializer.MAX_CHUNK_SIZE));
        ch.pipeline().addLast(HttpBridgeHandler.NAME, new HttpBridgeHandler(bridge, unreachable, CODEC));
    }
}
