package dev.tunnel.bench;

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
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import java.io.File;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLException;

/**
 * A reference for memory, not a tunnel: the least Netty code with the tunnel's shape, run in the
 * same JVM with the same flags, so that {@code bench/compare.sh} can show what a JVM, Netty and
 * BoringSSL cost before any of the tunnel's own code.
 *
 * <pre>
 * public side:  java -cp tunnel-bench.jar dev.tunnel.bench.NettyFloor server --listen 127.0.0.1:8080 \
 *                    --peer 127.0.0.1:7000 --cert server.crt --key server.key
 * home side:    java -cp tunnel-bench.jar dev.tunnel.bench.NettyFloor client --listen 127.0.0.1:7000 \
 *                    --target 127.0.0.1:80 --ca ca.crt
 * </pre>
 *
 * <p>Each side plays the tunnel's TLS role: {@code server} accepts public connections and holds
 * the certificate (TLS server), {@code client} verifies it against a CA and reaches the app
 * (TLS client). To stay minimal the public side opens the TCP connection to the home side, one
 * TLS connection per public connection: no login, no multiplexing, no flow control beyond
 * read-when-writable, no config file, no logging framework (Netty logs through
 * {@code java.util.logging}), Netty's epoll transport and BoringSSL directly.
 *
 * <p>Threading: one event loop per process carries every connection of that process.
 */
public final class NettyFloor extends ListeningService {

    private NettyFloor(EventLoopGroup group, Channel listener) {
        super(group, listener);
    }

    /** The public side: plain connections in, a TLS-server connection out to {@code peer} for each. */
    public static NettyFloor server(InetSocketAddress listen, InetSocketAddress peer, File cert, File key)
            throws InterruptedException, SSLException {
        SslContext tls = SslContextBuilder.forServer(cert, key).sslProvider(SslProvider.OPENSSL).build();
        return start(listen, peer, null, tls);
    }

    /** The home side: TLS-client connections in (server verified against {@code ca}), a plain connection out to {@code target}. */
    public static NettyFloor client(InetSocketAddress listen, InetSocketAddress target, File ca)
            throws InterruptedException, SSLException {
        SslContext tls = SslContextBuilder.forClient().sslProvider(SslProvider.OPENSSL).trustManager(ca).build();
        return start(listen, target, tls, null);
    }

    /** {@code inTls}: TLS on accepted connections (home side); {@code outTls}: on the connection out (public side). */
    private static NettyFloor start(InetSocketAddress listen, InetSocketAddress target, SslContext inTls, SslContext outTls)
            throws InterruptedException {
        InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try {
            Channel listener = new ServerBootstrap()
                    .group(group)
                    .channel(EpollServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 4096)
                    .childOption(ChannelOption.AUTO_READ, false)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel in) {
                            if (inTls != null) {
                                in.pipeline().addLast(handler(inTls, in, target));
                            }
                            connect(in, target, outTls);
                        }
                    })
                    .bind(listen).sync().channel();
            return new NettyFloor(group, listener);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** The client-side handler verifies the server's name; the target's address stands for it on loopback. */
    private static SslHandler handler(SslContext tls, Channel ch, InetSocketAddress peer) {
        if (tls.isServer()) {
            return tls.newHandler(ch.alloc());
        }
        SslHandler h = tls.newHandler(ch.alloc(), "localhost", peer.getPort());
        SSLEngine engine = h.engine();
        SSLParameters params = engine.getSSLParameters();
        params.setEndpointIdentificationAlgorithm("HTTPS");
        engine.setSSLParameters(params);
        return h;
    }

    private static void connect(Channel in, InetSocketAddress target, SslContext outTls) {
        new Bootstrap()
                .group(in.eventLoop())
                .channel(EpollSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel out) {
                        if (outTls != null) {
                            out.pipeline().addLast(handler(outTls, out, target));
                        }
                        out.pipeline().addLast(new Relay(in));
                    }
                })
                .connect(target)
                .addListener((ChannelFutureListener) f -> {
                    if (!f.isSuccess()) {
                        in.close();
                        return;
                    }
                    in.pipeline().addLast(new Relay(f.channel()));
                    in.config().setAutoRead(true);
                });
    }

    /** Writes what one side reads to the other; reads only while the other side is writable. */
    private static final class Relay extends ChannelInboundHandlerAdapter {
        private final Channel peer;

        Relay(Channel peer) {
            this.peer = peer;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            peer.write(msg, peer.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            peer.flush();
            ctx.channel().config().setAutoRead(peer.isWritable());
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            // this side's writability gates the peer's reads
            peer.config().setAutoRead(ctx.channel().isWritable());
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        String role = args.positional().isEmpty() ? "" : args.positional().get(0);
        InetSocketAddress listen = Args.address("listen", args.required("listen"));
        NettyFloor floor = switch (role) {
            case "server" -> server(listen, Args.address("peer", args.required("peer")),
                    new File(args.required("cert")), new File(args.required("key")));
            case "client" -> client(listen, Args.address("target", args.required("target")), new File(args.required("ca")));
            default -> throw new IllegalArgumentException("first argument: server or client, not '" + role + "'");
        };
        Runtime.getRuntime().addShutdownHook(new Thread(floor::close, "floor-stop"));
        System.out.println("netty floor " + role + " on " + floor.address());
        floor.awaitClosed();
    }
}
