package dev.tunnel.client.plugin;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpServerCodec;

/**
 * Assembles one {@code http_proxy} connection's pipeline and nothing else:
 * {@code headDeadline -> codec -> httpProxy}. The codec bounds the request line to 4 KiB and the
 * headers to 8 KiB (as {@code static_file}); the proxy handler removes the codec and itself once
 * the head is accepted, leaving the raw relay.
 */
final class HttpProxyInitializer extends ChannelInitializer<Channel> {
    static final String CODEC = "codec";

    private final BasicAuth auth;
    private final Destinations destinations;
    private final long headDeadlineMillis;

    HttpProxyInitializer(BasicAuth auth, Destinations destinations, long headDeadlineMillis) {
        this.auth = auth;
        this.destinations = destinations;
        this.headDeadlineMillis = headDeadlineMillis;
    }

    @Override
    protected void initChannel(Channel ch) {
        ch.pipeline().addLast(HeadDeadline.NAME, new HeadDeadline(headDeadlineMillis));
        ch.pipeline().addLast(CODEC, new HttpServerCodec(StaticFileServerInitializer.MAX_INITIAL_LINE,
                StaticFileServerInitializer.MAX_HEADER_SIZE, StaticFileServerInitializer.MAX_CHUNK_SIZE));
        ch.pipeline().addLast(HttpProxyHandler.NAME, new HttpProxyHandler(auth, destinations, CODEC));
    }
}
