package dev.tunnel.tls;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A TLS echo server on 127.0.0.1:0 and a client that round-trips one message through it. */
final class TlsEcho implements AutoCloseable {

    /** What the client saw of a successful round trip. */
    record Result(String echoed, String protocol, Certificate[] peerCertificates, boolean resumed, String group) {
    }

    private final EventLoopGroup group;
    private final Channel serverChannel;
    /** Causes of failed server-side handshakes, in order. */
    private final BlockingQueue<Throwable> serverFailures;
    /** The server side's successful handshakes, full and resumed. */
    private final TlsSessions serverSessions;

    private TlsEcho(EventLoopGroup group, Channel serverChannel, BlockingQueue<Throwable> serverFailures,
                    TlsSessions serverSessions) {
        this.group = group;
        this.serverChannel = serverChannel;
        this.serverFailures = serverFailures;
        this.serverSessions = serverSessions;
    }

    static TlsEcho start(EventLoopGroup group, SslContext serverContext) throws InterruptedException {
        BlockingQueue<Throwable> failures = new LinkedBlockingQueue<>();
        TlsSessions sessions = new TlsSessions();
        Channel channel = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler ssl = serverContext.newHandler(ch.alloc());
                        ssl.handshakeFuture().addListener(f -> {
                            if (f.isSuccess()) {
                                sessions.record(ssl);
                            } else {
                                failures.add(f.cause());
                            }
                        });
                        ch.pipeline().addLast(ssl, new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                ctx.writeAndFlush(msg);
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                ctx.close();
                            }
                        });
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        return new TlsEcho(group, channel, failures, sessions);
    }

    /** The next failed server-side handshake, waiting up to 5 seconds; null if none. */
    Throwable nextServerFailure() throws InterruptedException {
        return serverFailures.poll(5, TimeUnit.SECONDS);
    }

    /** How the server side's handshakes went so far. */
    TlsSessions serverSessions() {
        return serverSessions;
    }

    int port() {
        return ((InetSocketAddress) serverChannel.localAddress()).getPort();
    }

    /**
     * Connects to the server as {@code serverName}, echoes {@code message} and returns what came back.
     *
     * @throws ExecutionException with the handshake or connection failure as the cause
     */
    Result roundTrip(SslContext clientContext, String serverName, boolean verifyHostname, String message)
            throws Exception {
        return roundTrip(clientContext, serverName, verifyHostname, message, false);
    }

    /** Like {@link #roundTrip(SslContext, String, boolean, String)}; {@code x25519Only}: {@link TlsSessions#offerX25519Only}. */
    Result roundTrip(SslContext clientContext, String serverName, boolean verifyHostname, String message,
                     boolean x25519Only) throws Exception {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        CompletableFuture<String> echoed = new CompletableFuture<>();
        // Captured in initChannel: a fast handshake failure closes the channel and empties the pipeline.
        SslHandler[] sslHolder = new SslHandler[1];
        Channel channel = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler ssl = TlsContexts.newClientHandler(
                                clientContext, ch.alloc(), serverName, port(), verifyHostname);
                        if (x25519Only && !TlsSessions.offerX25519Only(ssl)) {
                            throw new IllegalStateException("the key exchange cannot be restricted");
                        }
                        ssl.handshakeFuture().addListener(f -> {
                            if (!f.isSuccess()) {
                                echoed.completeExceptionally(f.cause());
                            }
                        });
                        sslHolder[0] = ssl;
                        ch.pipeline().addLast(ssl, new Collector(bytes.length, echoed));
                    }
                })
                .connect("127.0.0.1", port()).sync().channel();
        try {
            SslHandler ssl = sslHolder[0];
            ssl.handshakeFuture().await(5, TimeUnit.SECONDS);
            channel.writeAndFlush(Unpooled.wrappedBuffer(bytes));
            String text = echoed.get(5, TimeUnit.SECONDS);
            return new Result(text, ssl.engine().getSession().getProtocol(),
                    ssl.engine().getSession().getPeerCertificates(), TlsSessions.resumed(ssl.engine()),
                    TlsSessions.group(ssl.engine()));
        } finally {
            channel.close().sync();
        }
    }

    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
    }

    /** Accumulates the echo until {@code expected} bytes arrived; fails the future when the channel dies first. */
    private static final class Collector extends ChannelInboundHandlerAdapter {
        private final StringBuilder received = new StringBuilder();
        private final int expected;
        private final CompletableFuture<String> result;
        private int count;

        Collector(int expected, CompletableFuture<String> result) {
            this.expected = expected;
            this.result = result;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                count += buf.readableBytes();
                received.append(buf.toString(StandardCharsets.UTF_8));
            } finally {
                buf.release();
            }
            if (count >= expected) {
                result.complete(received.toString());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            result.completeExceptionally(cause);
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            result.completeExceptionally(new IllegalStateException("connection closed before the echo arrived"));
        }
    }
}
