package dev.tunnel.bench;

import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay that emulates a long link: each byte read at t is written to the other side at
 * t + delay (in order; EOF and close follow after the delay too), optionally capped at a
 * bandwidth, with fault modes for chaos tests. Place it between tunnel-client and
 * tunnel-server (or between ssh and sshd):
 *
 * <pre>
 * java -cp tunnel-bench.jar dev.tunnel.bench.LinkEmulator --listen 127.0.0.1:7001 \
 *      --target 127.0.0.1:7000 --delay-ms 40 [--rate-mbit 100] [--max-queue-kib 8192] [--share fifo|fair] \
 *      [--fault stall|reset|reset-client-side|half-open --fault-after-ms 5000 [--fault-for-ms 3000]] [--threads 2]
 * </pre>
 *
 * <h3>Memory</h3>
 * Each direction of each connection queues at most {@code --max-queue-kib} bytes "on the
 * wire" ({@link DelayPipe}); beyond that it stops reading its source, so TCP backpressure
 * reaches the sender. The default (8 MiB) carries 1.6 Gbit/s at 40 ms.
 *
 * <h3>Shared link</h3>
 * By default every connection gets a link of its own, so two connections get twice the rate.
 * With {@code --share fifo} or {@code --share fair} (and a rate), every connection shares one
 * {@link SharedBottleneck} per direction, as behind a home uplink: one rate and one queue of
 * {@code --max-queue-kib}, either one FIFO for all (a cable modem's buffer) or served per flow
 * in round robin (fq_codel-like). A full queue holds the senders back rather than dropping
 * (see {@link SharedBottleneck}); the emulator then reads at most 64 KiB at a time and keeps
 * its sockets' receive buffers at 64 KiB, so little waits outside the emulated queue.
 *
 * <h3>Faults</h3>
 * A fault lasts from {@link #fault(Fault)} with it until {@link #fault(Fault)} with another mode
 * (on the command line, {@code --fault-for-ms}); {@code fault(X)} then at once
 * {@code fault(NONE)} hits the connections open at that moment only.
 * <ul>
 *   <li>{@code stall}: nothing is delivered, neither bytes nor EOF nor close, and no RST is
 *       sent (queues fill, then reading stops); new connections are accepted and stall too.
 *       When the fault ends, what was held is delivered, in order: like a link whose packets
 *       TCP retransmits once it is back, so an endpoint that gave up meanwhile is then seen
 *       closing.
 *   <li>{@code reset}: every connection is closed with RST on both sides; new connections are
 *       reset at once while the fault lasts.
 *   <li>{@code reset-client-side}: every connection is closed with RST on the side that
 *       connected to the emulator only; the target side stays open and never hears from that
 *       connection again (a peer whose machine vanished: a half-open connection). New
 *       connections are reset at once while the fault lasts.
 *   <li>{@code half-open}: everything read is dropped and closes are not relayed: each side
 *       still thinks the other is there (a NAT that forgot the flow). Only a heartbeat notices.
 * </ul>
 * A connection that lost anything (bytes, EOF, close) never forwards again, even after the
 * fault ends: a TCP stream cannot resume across a hole. Such a connection keeps reading and
 * dropping what its open side sends, and stays open until that side closes it or the emulator
 * stops. Under {@code half-open} that is every connection open when the fault starts and every
 * new one that drops something while it lasts; {@code stall} loses nothing.
 *
 * <p>Threading: both sockets of a relayed pair share one event loop, whose scheduled tasks run
 * in deadline order, so order is kept.
 */
public final class LinkEmulator implements AutoCloseable {
    /** What the link does to the traffic. */
    public enum Fault {
        NONE, STALL, RESET, RESET_CLIENT_SIDE, HALF_OPEN;

        static Fault parse(String s) {
            try {
                return valueOf(s.toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--fault: " + s + " (expected: stall, reset, reset-client-side, half-open)");
            }
        }
    }

    /**
     * Link settings. {@code rateBitsPerSecond} 0 = no cap. {@code share} null: every connection
     * has a link of its own; else one shared bottleneck per direction with that discipline (a
     * rate is then required), {@code maxQueueBytes} being its queue.
     */
    public record Settings(long delayNanos, long rateBitsPerSecond, int maxQueueBytes, SharedBottleneck.Discipline share) {
        public Settings(long delayNanos, long rateBitsPerSecond, int maxQueueBytes) {
            this(delayNanos, rateBitsPerSecond, maxQueueBytes, null);
        }

        public static Settings delay(long millis) {
            return new Settings(TimeUnit.MILLISECONDS.toNanos(millis), 0, 8 << 20);
        }
    }

    /** Receive buffer of the emulator's sockets on a shared link, and the most one read returns. */
    private static final int SHARED_READ_BYTES = 64 << 10;

    private final EventLoopGroup group;
    private final Channel listener;
    private final Settings settings;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final java.util.Set<DelayPipe> pipes = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile Fault fault = Fault.NONE;
    /** Client to target and target to client on a shared link; null otherwise. */
    private final SharedBottleneck up;
    private final SharedBottleneck down;

    private LinkEmulator(EventLoopGroup group, Channel listener, Settings settings) {
        this.group = group;
        this.listener = listener;
        this.settings = settings;
        if (settings.share() != null) {
            EventLoop loop = (EventLoop) group.next();
            up = new SharedBottleneck(loop, this, settings.rateBitsPerSecond(), settings.maxQueueBytes(), settings.share());
            down = new SharedBottleneck(loop, this, settings.rateBitsPerSecond(), settings.maxQueueBytes(), settings.share());
        } else {
            up = null;
            down = null;
        }
    }

    /**
     * Listens on {@code listen} (port 0 = any) and relays each connection to {@code target}, on
     * {@code threads} event loops (one when the link is shared: the bottleneck's loop).
     */
    public static LinkEmulator start(InetSocketAddress listen, InetSocketAddress target, Settings settings, int threads)
            throws InterruptedException {
        if (settings.share() != null && settings.rateBitsPerSecond() <= 0) {
            throw new IllegalArgumentException("a shared link needs a rate (--rate-mbit > 0)");
        }
        boolean shared = settings.share() != null;
        EventLoopGroup group = Transports.newGroup(shared ? 1 : threads, "link-emulator");
        LinkEmulator[] self = new LinkEmulator[1];
        Channel listener;
        try {
            ServerBootstrap bootstrap = new ServerBootstrap();
            if (shared) {
                bootstrap.option(ChannelOption.SO_RCVBUF, SHARED_READ_BYTES)
                        .childOption(ChannelOption.SO_RCVBUF, SHARED_READ_BYTES)
                        .childOption(ChannelOption.RCVBUF_ALLOCATOR, sharedReads());
            }
            listener = bootstrap
                    .group(group)
                    .channel(Transports.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 4096)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                    .childOption(ChannelOption.AUTO_READ, false)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel inbound) {
                            self[0].accept(inbound, target);
                        }
                    })
                    .bind(listen).sync().channel();
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
        self[0] = new LinkEmulator(group, listener, settings);
        return self[0];
    }

    /** One read of at most 64 KiB per {@code read()}: what a flow may overshoot the shared queue by. */
    private static RecvByteBufAllocator sharedReads() {
        return new AdaptiveRecvByteBufAllocator(64, 2048, SHARED_READ_BYTES).maxMessagesPerRead(1);
    }

    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    public Fault fault() {
        return fault;
    }

    /**
     * Changes the fault mode now (see Faults above): {@link Fault#RESET},
     * {@link Fault#RESET_CLIENT_SIDE} and {@link Fault#HALF_OPEN} hit every open connection at
     * once; {@link Fault#NONE} delivers what a stall held back.
     */
    public void fault(Fault mode) {
        fault = mode;
        for (Channel c : connections) {
            c.eventLoop().execute(() -> {
                DelayPipe pipe = c.pipeline().get(DelayPipe.class);
                switch (mode) {
                    case NONE -> {
                        if (pipe != null) {
                            pipe.faultCleared();
                        }
                    }
                    case RESET -> {
                        // Cut first: a socket closed by the reset must not have its close relayed
                        // to the other one as a FIN before that one is reset too.
                        if (pipe != null) {
                            pipe.cutConnection();
                        }
                        DelayPipe.reset(c);
                    }
                    case RESET_CLIENT_SIDE, HALF_OPEN -> {
                        if (pipe != null) {
                            pipe.cutConnection();
                        }
                        if (mode == Fault.RESET_CLIENT_SIDE && isClientSide(c)) {
                            DelayPipe.reset(c);
                        }
                    }
                    default -> {
                    }
                }
            });
        }
    }

    /** Whether {@code c} is the socket that connected to the emulator (not the one to the target). */
    private boolean isClientSide(Channel c) {
        return c.parent() == listener;
    }

    /** Open relayed sockets (two per connection). */
    public int openSockets() {
        return connections.size();
    }

    private void accept(SocketChannel inbound, InetSocketAddress target) {
        if (fault == Fault.RESET || fault == Fault.RESET_CLIENT_SIDE) {
            inbound.eventLoop().execute(() -> DelayPipe.reset(inbound));
            return;
        }
        connections.add(inbound);
        io.netty.bootstrap.Bootstrap bootstrap = new io.netty.bootstrap.Bootstrap();
        if (down != null) {
            bootstrap.option(ChannelOption.SO_RCVBUF, SHARED_READ_BYTES)
                    .option(ChannelOption.RCVBUF_ALLOCATOR, sharedReads());
        }
        Channel outbound = bootstrap
                .group(inbound.eventLoop())
                .channel(Transports.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .option(ChannelOption.AUTO_READ, false)
                .handler(new DelayPipe(this, inbound, down))
                .connect(target)
                .addListener(f -> {
                    if (!f.isSuccess()) {
                        DelayPipe.reset(inbound);
                    }
                })
                .channel();
        connections.add(outbound);
        inbound.pipeline().addLast(new DelayPipe(this, outbound, up));
    }

    Settings settings() {
        return settings;
    }

    /** Pipes that hold queued bytes, so that {@link #close()} can release them. */
    void track(DelayPipe pipe) {
        pipes.add(pipe);
    }

    void untrack(DelayPipe pipe) {
        pipes.remove(pipe);
    }

    @Override
    public void close() {
        listener.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        for (EventExecutor loop : group) {
            loop.submit(() -> {
                pipes.forEach(p -> {
                    if (p.inEventLoop(loop)) {
                        p.releaseAll();
                    }
                });
                if (up != null) { // a shared link runs one loop: this one
                    up.releaseAll();
                    down.releaseAll();
                }
            }).awaitUninterruptibly(1, TimeUnit.SECONDS);
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static SharedBottleneck.Discipline parseShare(String s) {
        try {
            return SharedBottleneck.Discipline.valueOf(s.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--share: " + s + " (expected: fifo, fair)");
        }
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        InetSocketAddress listen = Args.address("listen", args.required("listen"));
        InetSocketAddress target = Args.address("target", args.required("target"));
        long delayMs = args.number("delay-ms", 0, 0, 60_000);
        long rateMbit = args.number("rate-mbit", 0, 0, 1_000_000);
        long queueKib = args.number("max-queue-kib", 8192, 16, 1 << 20);
        int threads = (int) args.number("threads", 2, 1, 64);
        Fault mode = args.has("fault") ? Fault.parse(args.string("fault", "")) : Fault.NONE;
        long after = args.number("fault-after-ms", 0, 0, Long.MAX_VALUE / 2);
        long lasting = args.number("fault-for-ms", 0, 0, Long.MAX_VALUE / 2);
        SharedBottleneck.Discipline share = args.has("share") ? parseShare(args.string("share", "")) : null;

        Settings settings = new Settings(TimeUnit.MILLISECONDS.toNanos(delayMs), rateMbit * 1_000_000,
                (int) (queueKib * 1024), share);
        LinkEmulator link = start(listen, target, settings, threads);
        Runtime.getRuntime().addShutdownHook(new Thread(link::close, "link-emulator-stop"));
        System.out.printf("link emulator %s -> %s: delay %d ms each way, rate %s, queue %d KiB %s%n",
                link.listener.localAddress(), target, delayMs, rateMbit == 0 ? "uncapped" : rateMbit + " Mbit/s", queueKib,
                share == null ? "per connection" : "shared by every connection (" + share.name().toLowerCase(Locale.ROOT) + ")");
        if (mode != Fault.NONE) {
            link.group.schedule(() -> {
                System.out.println("fault " + mode + " starts");
                link.fault(mode);
            }, after, TimeUnit.MILLISECONDS);
            if (lasting > 0) {
                link.group.schedule(() -> {
                    System.out.println("fault " + mode + " ends");
                    link.fault(Fault.NONE);
                }, after + lasting, TimeUnit.MILLISECONDS);
            }
        }
        link.listener.closeFuture().sync();
    }
}
