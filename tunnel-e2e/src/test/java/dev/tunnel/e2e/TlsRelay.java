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

    /**
     * What the relay saw in the clear, each direction's bytes in order (a man in the middle's
     * recording). Thread-safe.
     */
    static final class Recording {
        private final java.io.ByteArrayOutputStream toServer = new java.io.ByteArrayOutputStream();
        private final java.io.ByteArrayOutputStream toClient = new java.io.ByteArrayOutputStream();

        synchronized byte[] toServer() {
            return toServer.toByteArray();
        }

        synchronized byte[] toClient() {
            return toClient.toByteArray();
        }

        synchronized void add(boolean fromClient, Object msg) {
            if (msg instanceof io.netty.buffer.ByteBuf b) {
                byte[] bytes = io.netty.buffer.ByteBufUtil.getBytes(b);
                (fromClient ? toServer : toClient).writeBytes(bytes);
            }
        }
    }

    private final Recording recording;

    TlsRelay(SslContext frontTls, int serverPort, boolean tlsToServer) throws Exception {
        this(frontTls, serverPort, tlsToServer, null);
    }

    /** @param recording gets every byte in the clear, both ways; null: none kept */
    TlsRelay(SslContext frontTls, int serverPort, boolean tlsToServer, Recording recording) throws Exception {
        this.recording = recording;
        SslContext backTls = tlsToServer
                ? SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE)
                .endpointIdentificationAlgorithm(null).build()
                : null;
        listener = new ServerBootstrap().group(group).channel(Transports.serverChannel())
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(frontTls.newHandler(ch.alloc()), new Front(serverPort, backTls, recording));
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
        private final Recording recording;
        private Channel back;

        Front(int serverPort, SslContext backTls, Recording recording) {
            this.serverPort = serverPort;
            this.backTls = backTls;
            this.recording = recording;
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
                            ch.pipeline().addLast(new Pipe(front, recording));
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
            if (recording != null) {
                recording.add(true, msg);
            }
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
        private final Recording recording;

        Pipe(Channel front, Recording recording) {
            this.front = front;
            this.recording = recording;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (recording != null) {
                recording.add(false, msg);
            }
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
