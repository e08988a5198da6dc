package dev.tunnel.protocol.transport;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.List;
import java.util.Locale;

/**
 * The process's I/O transport: io_uring, epoll or NIO. Every group and channel class comes from
 * here, so they never mix.
 *
 * <p>The choice is made once per process, before the first group is built: {@link #use} with the
 * config's {@code transport.ioUring} ({@code auto}, {@code on}, {@code off}); a
 * {@code -Dtunnel.transport=io_uring|epoll|nio} system property overrides it (tests, benches).
 * {@code auto} is {@link #AUTO} when its native library loads, then epoll, then NIO. The epoll handler carries two fixes
 * to Netty's ({@link FixedEpollIoHandler}); io_uring needs neither ({@code FixedEpollIoHandlerTest} runs both cases on it).
 *
 * <p>Threading: {@link #use} is called by a server's or client's start-up before it builds its
 * group; everything else may be called from any thread.
 */
public final class Transports {
    /** An I/O transport, by the name logs and configs use. */
    public enum Kind {
        IO_URING("io_uring"), EPOLL("epoll"), NIO("nio");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /**
     * What {@code transport.ioUring = "auto"} picks when its library loads: epoll for now. io_uring
     * passes the same tests in both modes ({@code IoUringTest}) and makes fewer syscalls per
     * connection, but the side-by-side runs so far have not shown it faster on every figure
     * ({@code docs/performance.md}), so it is opt-in.
     */
    static final Kind AUTO = Kind.EPOLL;
    /** System property that overrides the config's choice. */
    static final String PROPERTY = "tunnel.transport";

    /** Largest single read of a relayed socket or the tunnel connection. */
    public static final int MAX_READ = 256 * 1024;
    private static final RecvByteBufAllocator BULK_READS = new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ);
    /** Most event-loop threads a config may ask for ({@code transport.eventLoopThreads}). */
    public static final int MAX_THREADS = 256;

    private static volatile Choice choice = choose("auto", System.getProperty(PROPERTY), Availability.probe());

    private Transports() {
    }

    /** A transport and why it was chosen, for the start-up log. */
    public record Choice(Kind kind, String reason) {
        @Override
        public String toString() {
            return kind + " (" + reason + ")";
        }
    }

    /** Which native transports load here, and why not. */
    record Availability(Throwable ioUring, Throwable epoll) {
        static Availability probe() {
            return new Availability(IoUring.isAvailable() ? null : IoUring.unavailabilityCause(),
                    Epoll.isAvailable() ? null : Epoll.unavailabilityCause());
        }
    }

    /**
     * Chooses the transport for this process from {@code transport.ioUring} and logs nothing
     * (callers log {@link #current()}).
     *
     * @throws IllegalStateException when {@code on} asks for io_uring and it does not load here
     */
    public static Choice use(String ioUringSetting) {
        Choice chosen = choose(ioUringSetting, System.getProperty(PROPERTY), Availability.probe());
        choice = chosen;
        return chosen;
    }

    /** The transport in use. */
    public static Choice current() {
        return choice;
    }

    static Choice choose(String setting, String property, Availability available) {
        if (property != null && !property.isEmpty()) {
            Kind forced = switch (property.toLowerCase(Locale.ROOT)) {
                case "io_uring", "iouring" -> Kind.IO_URING;
                case "epoll" -> Kind.EPOLL;
                case "nio" -> Kind.NIO;
                default -> throw new IllegalStateException("-D" + PROPERTY + "=" + property
                        + " (expected: io_uring, epoll or nio)");
            };
            if (forced == Kind.IO_URING && available.ioUring() != null
                    || forced == Kind.EPOLL && available.epoll() != null) {
                throw new IllegalStateException("-D" + PROPERTY + "=" + property + " but " + forced
                        + " is not available here: " + (forced == Kind.IO_URING ? available.ioUring() : available.epoll()));
            }
            return new Choice(forced, "-D" + PROPERTY + "=" + property);
        }
        String ioUringReason = available.ioUring() == null ? null : "io_uring unavailable: " + available.ioUring();
        switch (setting) {
            case "on":
                if (ioUringReason != null) {
                    throw new IllegalStateException("transport.ioUring = \"on\" but " + ioUringReason);
                }
                return new Choice(Kind.IO_URING, "transport.ioUring = on");
            case "off":
                return fallback("transport.ioUring = off", available);
            case "auto":
                if (AUTO == Kind.IO_URING && ioUringReason == null) {
                    return new Choice(Kind.IO_URING, "transport.ioUring = auto");
                }
                return fallback(AUTO == Kind.IO_URING ? ioUringReason : "transport.ioUring = auto", available);
            default:
                throw new IllegalArgumentException("transport.ioUring: \"" + setting + "\" (expected: auto, on, off)");
        }
    }

    private static Choice fallback(String why, Availability available) {
        if (available.epoll() == null) {
            return new Choice(Kind.EPOLL, why);
        }
        return new Choice(Kind.NIO, why + "; epoll unavailable: " + available.epoll());
    }

    /** "io_uring", "epoll" or "nio". */
    public static String name() {
        return choice.kind().toString();
    }

    /**
     * Event loops for a configured count: {@code configured}, or one per available core when it
     * is 0. Not Netty's default of twice the cores: the tunnel never blocks a loop, so a second
     * loop per core only adds a thread, its stack and its buffer caches.
     */
    public static int threads(int configured) {
        return configured > 0 ? configured : Runtime.getRuntime().availableProcessors();
    }

    /** A group of {@link #threads threads(configured)} event loops named {@code name-N-M}. */
    public static EventLoopGroup newGroup(int configured, String name) {
        return newGroup(choice.kind(), configured, name);
    }

    /** A group of the given transport (tests and benches that compare transports in one process). */
    public static EventLoopGroup newGroup(Kind kind, int configured, String name) {
        LeakChecks.defaultOff();
        IoHandlerFactory factory = switch (kind) {
            case IO_URING -> IoUringIoHandler.newFactory();
            case EPOLL -> FixedEpollIoHandler.newFactory();
            case NIO -> NioIoHandler.newFactory();
        };
        return new MultiThreadIoEventLoopGroup(threads(configured), new DefaultThreadFactory(name, true), factory);
    }

    /**
     * Read sizing for sockets that carry bulk bytes (relayed sockets, the tunnel connection): the
     * buffer adapts to what each read returns, as Netty's default does, but up to {@link #MAX_READ}
     * instead of 64 KiB, so a fast stream takes fewer reads, frames and TLS unwraps per GB. Small
     * traffic keeps small buffers; an idle socket holds none.
     */
    public static RecvByteBufAllocator bulkReads() {
        return BULK_READS;
    }

    public static Class<? extends ServerSocketChannel> serverChannel() {
        return serverChannel(choice.kind());
    }

    /** UDP sockets: a UDP proxy's public port, and the client's socket per UDP association. */
    public static Class<? extends DatagramChannel> datagramChannel() {
        return switch (choice.kind()) {
            case IO_URING -> IoUringDatagramChannel.class;
            case EPOLL -> EpollDatagramChannel.class;
            case NIO -> NioDatagramChannel.class;
        };
    }

    public static Class<? extends SocketChannel> socketChannel() {
        return socketChannel(choice.kind());
    }

    public static Class<? extends ServerSocketChannel> serverChannel(Kind kind) {
        return switch (kind) {
            case IO_URING -> IoUringServerSocketChannel.class;
            case EPOLL -> EpollServerSocketChannel.class;
            case NIO -> NioServerSocketChannel.class;
        };
    }

    public static Class<? extends SocketChannel> socketChannel(Kind kind) {
        return switch (kind) {
            case IO_URING -> IoUringSocketChannel.class;
            case EPOLL -> EpollSocketChannel.class;
            case NIO -> NioSocketChannel.class;
        };
    }
}
