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
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay on 127.0.0.1 between the client and the server that adds a fixed one-way delay
 * in each direction (bytes read at t are written at t + delay, in order; EOF too), and injects
 * faults. Emulates the VPS-to-home link (this machine has no tc netem). Both sockets of a pair
 * share one event loop, whose scheduled tasks run in deadline order, so order is kept.
 *
 * <h3>Faults</h3>
 * <ul>
 *   <li>{@link #stall()}: every connection, and every new one until {@link #pass()}, silently
 *       stops forwarding: bytes are swallowed, sockets stay open, no FIN, no RST.</li>
 *   <li>{@link #reset()}: every current connection is closed with RST on both sides.</li>
 *   <li>{@link #halfOpen()}: every current connection is closed (RST) on the client side only;
 *       the server side stays open and hears nothing more, like a peer whose machine vanished.</li>
 * </ul>
 * A connection hit by a fault never forwards again (a link that lost bytes cannot resume a TCP
 * stream), and does not pass on the close of either side; {@link #pass()} only lets new
 * connections through again.
 */
final class DelayLink implements AutoCloseable {
    private final EventLoopGroup group = Transports.newGroup(1, "delay-link");
    private final Channel listener;
    private final long delayNanos;
    /** Bytes on the line, by identity: ByteBuf.equals compares content, so equal messages would collide. */
    private final Set<OnTheLine> inFlight = ConcurrentHashMap.newKeySet();

    /** Identity wrapper of a buffer waiting out its delay. */
    private static final class OnTheLine {
        final ByteBuf data;

        OnTheLine(ByteBuf data) {
            this.data = data;
        }
    }
    private final List<Pair> pairs = new CopyOnWriteArrayList<>();
    private volatile boolean stalled;

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
                        Pair pair = new Pair(inbound, stalled);
                        Channel outbound = new Bootstrap()
                                .group(inbound.eventLoop())
                                .channel(Transports.socketChannel())
                                .option(ChannelOption.TCP_NODELAY, true)
                                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                                .handler(new Delayed(pair, inbound))
                                .connect("127.0.0.1", targetPort)
                                .addListener(f -> {
                                    if (f.isSuccess()) {
                                        inbound.config().setAutoRead(true);
                                    } else {
                                        inbound.close();
                                    }
                                })
                                .channel();
                        pair.outbound = outbound;
                        pairs.add(pair);
                        inbound.pipeline().addLast(new Delayed(pair, outbound));
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
    }

    int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** Every connection stops forwarding silently; new ones too, until {@link #pass()}. */
    void stall() {
        stalled = true;
        pairs.forEach(p -> p.dead = true);
    }

    /** New connections are forwarded again (connections hit by a fault stay dead). */
    void pass() {
        stalled = false;
    }

    /** RST on both sides of every current connection. */
    void reset() {
        for (Pair p : pairs) {
            p.dead = true;
            group.execute(() -> {
                abort(p.inbound);
                abort(p.outbound);
            });
        }
    }

    /** RST on the client side of every current connection; the server side stays open, silent. */
    void halfOpen() {
        for (Pair p : pairs) {
            p.dead = true;
            group.execute(() -> abort(p.inbound));
        }
    }

    private static void abort(Channel ch) {
        if (ch != null && ch.isActive()) {
            ch.config().setOption(ChannelOption.SO_LINGER, 0);
            ch.close();
        }
    }

    /** The two sockets of one relayed connection. */
    private static final class Pair {
        final Channel inbound;
        volatile Channel outbound;
        volatile boolean dead;

        Pair(Channel inbound, boolean dead) {
            this.inbound = inbound;
            this.dead = dead;
        }
    }

    /** Forwards what its channel reads to {@code peer}, {@code delay} later, unless the pair is dead. */
    private final class Delayed extends ChannelInboundHandlerAdapter {
        private final Pair pair;
        private final Channel peer;

        Delayed(Pair pair, Channel peer) {
            this.pair = pair;
            this.peer = peer;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf data = (ByteBuf) msg;
            if (pair.dead) {
                data.release();
                return;
            }
            OnTheLine entry = new OnTheLine(data);
            inFlight.add(entry);
            ctx.executor().schedule(() -> {
                if (!inFlight.remove(entry)) {
                    return; // released by close()
                }
                if (peer.isActive() && !pair.dead) {
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
                    if (peer.isActive() && !pair.dead) {
                        ((DuplexChannel) peer).shutdownOutput();
                    }
                }, delayNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            pairs.remove(pair);
            if (!pair.dead) {
                ctx.executor().schedule(() -> peer.close(), delayNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Closes the listener and every connection, and frees the bytes still on the line. */
    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        long deadline = System.nanoTime() + 4 * delayNanos + TimeUnit.SECONDS.toNanos(1);
        while (!inFlight.isEmpty() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        for (OnTheLine entry : inFlight) {
            if (inFlight.remove(entry)) {
                entry.data.release();
            }
        }
    }
}
