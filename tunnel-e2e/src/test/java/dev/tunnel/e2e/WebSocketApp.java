package dev.tunnel.e2e;

import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** A local WebSocket app on Netty: echoes each text frame as "echo: TEXT". */
final class WebSocketApp implements AutoCloseable {
    private final EventLoopGroup group = Transports.newGroup(1, "ws-app");
    private final Channel server;

    WebSocketApp() throws InterruptedException {
        server = new ServerBootstrap().group(group).channel(Transports.serverChannel())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                                new WebSocketServerProtocolHandler("/ws"),
                                new SimpleChannelInboundHandler<TextWebSocketFrame>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, TextWebSocketFrame frame) {
                                        ctx.writeAndFlush(new TextWebSocketFrame("echo: " + frame.text()));
                                    }
                                });
                    }
                }).bind("127.0.0.1", 0).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
