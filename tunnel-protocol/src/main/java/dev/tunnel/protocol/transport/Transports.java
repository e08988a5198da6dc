package dev.tunnel.protocol.transport;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * Native epoll on Linux when its library loads, NIO elsewhere (or when
 * {@code -Dtunnel.transport=nio} asks for it). Every group and channel class comes from here so
 * both never mix. The epoll handler carries two fixes to Netty's ({@link FixedEpollIoHandler}).
 */
public final class Transports {
    private static final boolean EPOLL = !"nio".equals(System.getProperty("tunnel.transport")) && Epoll.isAvailable();
    /** Largest single read of a relayed socket or the tunnel connection. */
    public static final int MAX_READ = 256 * 1024;
    private static final RecvByteBufAllocator BULK_READS = new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ);

    private Transports() {
    }

    /** "epoll" or "nio". */
    public static String name() {
        return EPOLL ? "epoll" : "nio";
    }

    /** Why epoll is not used, for the startup log, or null when it is. */
    public static String unavailabilityReason() {
        if (EPOLL) {
            return null;
        }
        Throwable cause = Epoll.unavailabilityCause();
        return cause == null ? "disabled with -Dtunnel.transport=nio" : cause.toString();
    }

    /** Most event-loop threads a config may ask for ({@code transport.eventLoopThreads}). */
    public static final int MAX_THREADS = 256;

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
        LeakChecks.defaultOff();
        IoHandlerFactory factory = EPOLL ? FixedEpollIoHandler.newFactory() : NioIoHandler.newFactory();
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
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** UDP sockets: a UDP proxy's public port, and the client's socket per UDP association. */
    public static Class<? extends DatagramChannel> datagramChannel() {
        return EPOLL ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }

    public static Class<? extends SocketChannel> socketChannel() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }
}
