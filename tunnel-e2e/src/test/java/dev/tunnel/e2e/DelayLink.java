package dev.tunnel.e2e;

import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.SocketChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on 127.0.0.1 that adds a fixed one-way delay in each direction: bytes read at t
 * are written at t + delay, in order, and EOF is relayed after the delay too. Emulates the
 * VPS-to-home link (this machine has no tc netem). Both sockets of a pair share one event loop,
 * whose scheduled tasks run in deadline order, so order is kept.
 */
final class DelayLink implements AutoCloseable {
    private final EventLoopGroup group = Transports.newGroup(1, "delay-link");
    private final Channel listener;
    private final long delayNanos;
    private final AtomicInteger inFlight = new AtomicInteger();

    DelayLink(int targetPort, long delayMillis) throws InterruptedException {
        this.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMillis);
        listener = new ServerBootstrap()
                .group(group)
                .channel(Transports.serverChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel inbound) {
                        Channel outbound = new Bootstrap()
                                .group(inbound.eventLoop())
                                .channel(Transports.socketChannel())
                                .option(ChannelOption.TCP_NODELAY, true)
                                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                                .handler(new Delayed(inbound))
                                .connect("127.0.0.1", targetPort)
                                .addListener(f -> {
                                    if (f.isSuccess()) {
                                        inbound.config().setAutoRead(true);
                                    } else {
                                        inbound.close();
                                    }
                                })
                                .channel();
                        inbound.pipeline().addLast(new Delayed(outbound));
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Forwards what its channel reads to {@code peer}, {@code delay} later. */
    private final class Delayed extends ChannelInboundHandlerAdapter {
        private final Channel peer;

        Delayed(Channel peer) {
            this.peer = peer;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf data = (ByteBuf) msg;
            inFlight.incrementAndGet();
            ctx.executor().schedule(() -> {
                inFlight.decrementAndGet();
                if (peer.isActive()) {
                    peer.writeAndFlush(data);
                } else {
                    data.release();
                }
            }, delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt == ChannelInputShutdownEvent.INSTANCE) {
                ctx.executor().schedule(() -> {
                    if (peer.isActive()) {
                        ((DuplexChannel) peer).shutdownOutput();
                    }
                }, delayNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ctx.executor().schedule(() -> peer.close(), delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Closes the listener, lets bytes still on the line drain (they hold buffers), then stops. */
    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        long deadline = System.nanoTime() + 4 * delayNanos + TimeUnit.SECONDS.toNanos(1);
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
