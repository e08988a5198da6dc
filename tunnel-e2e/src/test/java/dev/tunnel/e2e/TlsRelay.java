package dev.tunnel.e2e;

import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A TLS terminator in front of the tunnel server, as nginx {@code stream} or HAProxy would be,
 * or a man in the middle: accepts TLS with the certificate it is given, and forwards the
 * decrypted bytes to the server, over plain TCP or re-encrypted with TLS (not verifying the
 * server, as an interceptor would not).
 *
 * <p>Threading: each accepted connection and its outbound twin share one event loop.
 */
final class TlsRelay implements AutoCloseable {
    private final EventLoopGroup group = Transports.newGroup(1, "tls-relay");
    private final Channel listener;

    TlsRelay(SslContext frontTls, int serverPort, boolean tlsToServer) throws Exception {
        SslContext backTls = tlsToServer
                ? SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                .endpointIdentificationAlgorithm(null).build()
                : null;
        listener = new ServerBootstrap().group(group).channel(Transports.serverChannel())
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(frontTls.newHandler(ch.alloc()), new Front(serverPort, backTls));
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** The client-facing side: connects to the server, then pipes bytes both ways. */
    private static final class Front extends ChannelInboundHandlerAdapter {
        private final int serverPort;
        private final SslContext backTls;
        private Channel back;

        Front(int serverPort, SslContext backTls) {
            this.serverPort = serverPort;
            this.backTls = backTls;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Channel front = ctx.channel();
            back = new Bootstrap().group(front.eventLoop()).channel(Transports.socketChannel())
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (backTls != null) {
                                ch.pipeline().addLast(backTls.newHandler(ch.alloc(), "127.0.0.1", serverPort));
                            }
                            ch.pipeline().addLast(new Pipe(front));
                        }
                    })
                    .connect("127.0.0.1", serverPort)
                    .addListener((ChannelFutureListener) f -> {
                        if (f.isSuccess()) {
                            front.read();
                        } else {
                            front.close();
                        }
                    }).channel();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            back.writeAndFlush(msg).addListener((ChannelFutureListener) f -> {
                if (f.isSuccess()) {
                    ctx.channel().read();
                } else {
                    ctx.close();
                }
            });
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (back != null) {
                closeOnFlush(back);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            closeOnFlush(ctx.channel());
        }
    }

    /** The server-facing side. */
    private static final class Pipe extends ChannelInboundHandlerAdapter {
        private final Channel front;

        Pipe(Channel front) {
            this.front = front;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!front.isActive()) {
                ReferenceCountUtil.release(msg);
                return;
            }
            front.writeAndFlush(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            closeOnFlush(front);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            closeOnFlush(ctx.channel());
        }
    }

    private static void closeOnFlush(Channel ch) {
        if (ch.isActive()) {
            ch.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
