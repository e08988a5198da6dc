package dev.tunnel.web;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.ReadTimeoutHandler;
import java.util.concurrent.Executor;

/**
 * Builds the pipeline of one web connection, and nothing else:
 * <pre>
 *   [ssl] (webServer.tls) -&gt; http codec -&gt; read timeout -&gt; aggregator (body &lt;= 1 MiB) -&gt; web handler
 * </pre>
 * The codec bounds the request line and headers (4 KiB / 8 KiB), the aggregator the body, and a
 * connection that sends nothing for {@value #IDLE_SECONDS} s is closed, so a slow or hostile
 * caller holds at most one small buffer for a bounded time.
 */
final class WebInitializer extends ChannelInitializer<SocketChannel> {
    static final int IDLE_SECONDS = 60;

    private final SslContext ssl;
    private final Routes routes;
    private final BasicAuth auth;
    private final Executor blocking;

    WebInitializer(SslContext ssl, Routes routes, BasicAuth auth, Executor blocking) {
        this.ssl = ssl;
        this.routes = routes;
        this.auth = auth;
        this.blocking = blocking;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ChannelPipeline p = ch.pipeline();
        if (ssl != null) {
            p.addLast("ssl", ssl.newHandler(ch.alloc()));
        }
        p.addLast("http", new HttpServerCodec());
        p.addLast("idle", new ReadTimeoutHandler(IDLE_SECONDS));
        p.addLast("aggregator", new HttpObjectAggregator(WebServer.MAX_BODY_BYTES));
        p.addLast("web", new WebHandler(routes, auth, blocking));
    }
}
