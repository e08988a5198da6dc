package dev.tunnel.client.plugin;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.flow.FlowControlHandler;

/**
 * Assembles the pipeline of one accepted connection and nothing else:
 * {@code codec -> flowControl -> keepAlive -> files}.
 *
 * <p>The codec bounds a request line to 4 KiB and the headers to 8 KiB; bodies are never aggregated.
 * The flow-control handler hands decoded messages on one per {@code read()}, so the file handler
 * (on a connection with {@code AUTO_READ=false}) decides when the next request is taken. The
 * keep-alive handler closes the connection after the response when the request asked for it.
 */
final class StaticFileServerInitializer extends ChannelInitializer<Channel> {

    static final int MAX_INITIAL_LINE = 4096;
    static final int MAX_HEADER_SIZE = 8192;
    static final int MAX_CHUNK_SIZE = 8192;

    private final RequestPaths paths;
    private final BasicAuth auth;
    private final ChannelGroup connections;

    StaticFileServerInitializer(RequestPaths paths, BasicAuth auth, ChannelGroup connections) {
        this.paths = paths;
        this.auth = auth;
        this.connections = connections;
    }

    @Override
    protected void initChannel(Channel ch) {
        connections.add(ch);
        ch.pipeline().addLast("codec", new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_SIZE, MAX_CHUNK_SIZE));
        ch.pipeline().addLast("flowControl", new FlowControlHandler());
        ch.pipeline().addLast("keepAlive", new HttpServerKeepAliveHandler());
        ch.pipeline().addLast("files", new StaticFileHandler(paths, auth));
    }
}
