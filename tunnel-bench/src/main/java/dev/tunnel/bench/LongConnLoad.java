package dev.tunnel.bench;

import dev.tunnel.protocol.transport.Transports;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.FixedLengthFrameDecoder;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Long-connection load: opens N connections to an echo backend (directly or through the
 * tunnel), then each sends a sequenced, timestamped message every interval and expects it
 * back. Counts sent, received, lost, duplicated and out-of-order messages, and records round
 * trips in one HdrHistogram per event loop, merged from the raw histograms at the end (a
 * percentile is never averaged). Prints its own CPU use, so a run shows whether the load tool
 * was the bottleneck.
 *
 * <pre>
 * java -cp tunnel-bench.jar dev.tunnel.bench.LongConnLoad --target 127.0.0.1:6000 \
 *      --connections 20000 --interval-ms 5000 --duration-s 60 [--threads 2] \
 *      [--sources 127.0.0.2,127.0.0.3] [--connect-rate 2000] [--message-size 64] [--warmup-ms 2000]
 *      [--drain-ms 5000] [--out result.txt] [--barrier DIR --parties N]
 * java -cp tunnel-bench.jar dev.tunnel.bench.LongConnLoad merge result-1.txt result-2.txt
 * </pre>
 *
 * Connections are opened at most {@code --connect-rate} per second and at most 512 at a time
 * until ready: with an interval, a connection is ready when its first message has come back (see
 * {@link LoadConnection}), so the ramp slows to the pace at which the target really accepts,
 * direct or through the tunnel alike, and the periodic messages start once every connection is
 * ready. The time this takes is reported as the connect time.
 *
 * <p>Round trips of messages sent during the first {@code --warmup-ms} of the run are not recorded
 * (they are still counted): a fresh JVM's JIT and first connections would show up as the
 * tail otherwise. {@code --interval-ms 0} only holds the connections (for memory per idle connection). Several
 * processes (one file descriptor limit each) write {@code --out} files that {@code merge}
 * combines. {@code --sources} spreads connections over local addresses when one address runs
 * out of ephemeral ports. {@code --barrier DIR --parties N} lines up N such processes: all start
 * sending when the last is connected, and none closes its connections before all have drained
 * ({@link ProcessBarrier}).
 */
public final class LongConnLoad {
    /** Longest wait at a barrier: ssh -R took three minutes to open 20,000 connections here. */
    private static final long BARRIER_TIMEOUT_MILLIS = 600_000;
    /** Load settings. */
    public record Options(List<InetSocketAddress> targets, int connections, long intervalMillis, long durationSeconds,
                          int threads, List<String> sources, int connectRate, int messageSize, long drainMillis,
                          long warmupMillis) {
        public Options {
            if (messageSize < LoadConnection.HEADER) {
                throw new IllegalArgumentException("--message-size: " + messageSize + " (expected: at least "
                        + LoadConnection.HEADER + ")");
            }
        }
    }

    private LongConnLoad() {
    }

    /** Runs the load; {@code connectedCallback} runs once every connection is up (or failed). */
    public static LoadResult run(Options o, Runnable connectedCallback) throws InterruptedException {
        return run(o, ProcessBarrier.NONE, connectedCallback);
    }

    static LoadResult run(Options o, ProcessBarrier barrier, Runnable connectedCallback) throws InterruptedException {
        EventLoopGroup group = Transports.newGroup(o.threads(), "load");
        Map<EventExecutor, LoadStats> stats = new IdentityHashMap<>();
        int seconds = (int) Math.min(100_000, o.durationSeconds() + (o.drainMillis() + 999) / 1000 + 1);
        for (EventExecutor loop : group) {
            stats.put(loop, new LoadStats(seconds));
        }
        ConcurrentLinkedQueue<Channel> channels = new ConcurrentLinkedQueue<>();
        long sendingUntil = Long.MAX_VALUE;
        LoadConnection.Clock clock = new LoadConnection.Clock();
        try {
            Bootstrap b = new Bootstrap()
                    .group(group)
                    .channel(Transports.socketChannel())
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 30_000);
            if ("epoll".equals(Transports.name()) && !o.sources().isEmpty()) {
                b.option(EpollChannelOption.IP_BIND_ADDRESS_NO_PORT, true);
            }
            long wallStart = System.nanoTime();
            Semaphore outstanding = new Semaphore(512);
            long perConnectNanos = 1_000_000_000L / Math.max(1, o.connectRate());
            long next = System.nanoTime();
            for (int i = 0; i < o.connections(); i++) {
                final int id = i;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                next += perConnectNanos;
                if (!outstanding.tryAcquire(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("connects stuck: 512 outstanding for 60 s");
                }
                Bootstrap one = b.clone().handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new FixedLengthFrameDecoder(o.messageSize()),
                                new LoadConnection(id, o, stats.get(ch.eventLoop()), clock, outstanding::release));
                    }
                });
                InetSocketAddress target = o.targets().get(i % o.targets().size());
                ChannelFuture f = o.sources().isEmpty()
                        ? one.connect(target)
                        : one.connect(target, new InetSocketAddress(o.sources().get(i % o.sources().size()), 0));
                f.addListener(done -> {
                    if (done.isSuccess()) {
                        channels.add(f.channel()); // the slot is freed when the connection is ready
                    } else {
                        outstanding.release();
                        LoadStats s = stats.get(f.channel().eventLoop());
                        f.channel().eventLoop().execute(() -> s.connectFailed(done.cause()));
                    }
                });
            }
            if (!outstanding.tryAcquire(512, 60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("connects did not finish within 60 s");
            }
            double connectSeconds = (System.nanoTime() - wallStart) / 1e9;
            connectedCallback.run();
            barrier.await("connected");

            CpuMeter cpu = new CpuMeter("load-");
            long start = System.nanoTime();
            if (o.intervalMillis() > 0) {
                sendingUntil = start + TimeUnit.SECONDS.toNanos(o.durationSeconds());
                clock.start(start, start + TimeUnit.MILLISECONDS.toNanos(o.warmupMillis()), sendingUntil);
                for (Channel ch : channels) {
                    LoadConnection conn = ch.pipeline().get(LoadConnection.class);
                    if (conn != null) { // null once the channel closed: it is counted as closed early
                        conn.startSending(ch);
                    }
                }
            }
            TimeUnit.SECONDS.sleep(o.durationSeconds());
            // Let the last round trips finish: until every sent message came back or the drain time is up.
            long drainUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(o.drainMillis());
            while (System.nanoTime() < drainUntil && !LoadStats.collect(stats, seconds).allAnswered()) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            double wall = (System.nanoTime() - start) / 1e9;
            CpuMeter.Reading reading = cpu.read();
            LoadStats.Snapshot snap = LoadStats.collect(stats, seconds);
            barrier.await("drained"); // closing thousands of connections would delay the others' last round trips
            return new LoadResult(o.connections(), channels.size() - snap.closedEarly(), snap, connectSeconds, wall,
                    reading.processCpuSeconds(), reading.busiestThreadCpuSeconds(), Runtime.getRuntime().availableProcessors());
        } finally {
            LoadStats.closing(stats);
            for (Channel ch : channels) {
                ch.close();
            }
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length > 0 && argv[0].equals("merge")) {
            List<LoadResult> parts = new ArrayList<>();
            for (int i = 1; i < argv.length; i++) {
                parts.add(LoadResult.read(Path.of(argv[i])));
            }
            System.out.println(LoadResult.merge(parts).report());
            return;
        }
        Args args = new Args(argv);
        String sources = args.string("sources", "");
        Options o = new Options(
                args.addresses("target", args.required("target")),
                (int) args.number("connections", 1000, 1, 1_000_000),
                args.number("interval-ms", 5000, 0, 3_600_000),
                args.number("duration-s", 60, 1, 86_400),
                (int) args.number("threads", 2, 1, 256),
                sources.isEmpty() ? List.of() : List.of(sources.split(",")),
                (int) args.number("connect-rate", 2000, 1, 1_000_000),
                (int) args.number("message-size", 64, LoadConnection.HEADER, 65_536),
                args.number("drain-ms", 5000, 0, 600_000),
                args.number("warmup-ms", 2000, 0, 3_600_000));
        String out = args.string("out", "");
        String barrierDir = args.string("barrier", "");
        ProcessBarrier barrier = barrierDir.isEmpty() ? ProcessBarrier.NONE
                : new ProcessBarrier(Path.of(barrierDir), (int) args.number("parties", 1, 1, 1_000), BARRIER_TIMEOUT_MILLIS);
        LoadResult result = run(o, barrier, () -> System.out.println("connected: ready"));
        System.out.println(result.report());
        if (!out.isEmpty()) {
            result.write(Path.of(out));
        }
    }

    /** Process CPU time and the busiest thread whose name starts with a prefix. */
    static final class CpuMeter {
        record Reading(double processCpuSeconds, double busiestThreadCpuSeconds) {
        }

        private final String prefix;
        private final long processStart;
        private final Map<Long, Long> threadStart = new java.util.HashMap<>();
        private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

        CpuMeter(String prefix) {
            this.prefix = prefix;
            this.processStart = processCpuNanos();
            for (long id : threads.getAllThreadIds()) {
                var info = threads.getThreadInfo(id);
                if (info != null && info.getThreadName().startsWith(prefix)) {
                    threadStart.put(id, threads.getThreadCpuTime(id));
                }
            }
        }

        Reading read() {
            long busiest = 0;
            for (var e : threadStart.entrySet()) {
                long now = threads.getThreadCpuTime(e.getKey());
                if (now >= 0) {
                    busiest = Math.max(busiest, now - e.getValue());
                }
            }
            return new Reading((processCpuNanos() - processStart) / 1e9, busiest / 1e9);
        }

        static long processCpuNanos() {
            var os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
                return sun.getProcessCpuTime();
            }
            return -1;
        }
    }

    static void writeFile(Path path, String text) {
        try {
            Files.writeString(path, text);
        } catch (IOException e) {
            throw new IllegalStateException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }
}
