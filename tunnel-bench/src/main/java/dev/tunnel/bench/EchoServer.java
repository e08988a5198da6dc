package dev.tunnel.bench;

import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The backend of the long-connection load: writes back every byte it reads, half-closes when
 * its peer does.
 *
 * <pre>java -cp tunnel-bench.jar dev.tunnel.bench.EchoServer --listen 127.0.0.1:9000 [--threads 2]</pre>
 *
 * <p>Backpressure: a connection stops reading while its own output is above the watermark.
 */
public final class EchoServer extends ListeningService {

    private EchoServer(EventLoopGroup group, Channel listener) {
        super(group, listener);
    }

    public static EchoServer start(InetSocketAddress listen, int threads) throws InterruptedException {
        EventLoopGroup group = Transports.newGroup(threads, "echo");
        try {
            Channel listener = new ServerBootstrap()
                    .group(group)
                    .channel(Transports.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 4096)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childHandler(Echo.INSTANCE)
                    .bind(listen).sync().channel();
            return new EchoServer(group, listener);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    @Sharable
    private static final class Echo extends ChannelInboundHandlerAdapter {
        static final Echo INSTANCE = new Echo();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg, ctx.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
            ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            ctx.channel().config().setAutoRead(ctx.channel().isWritable());
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt == ChannelInputShutdownEvent.INSTANCE) {
                ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener((ChannelFutureListener) f -> {
                    if (f.isSuccess()) {
                        ((DuplexChannel) ctx.channel()).shutdownOutput().addListener(s -> ctx.close());
                    }
                });
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        InetSocketAddress listen = Args.address("listen", args.required("listen"));
        int threads = (int) args.number("threads", 2, 1, 64);
        EchoServer echo = start(listen, threads);
        Runtime.getRuntime().addShutdownHook(new Thread(echo::close, "echo-stop"));
        System.out.println("echo server on " + echo.address());
        echo.awaitClosed();
    }
}
