package dev.tunnel.protocol.mux;

import io.netty.util.internal.PlatformDependent;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The process-wide cap on receive windows: the sum of every stream's window, over all sessions,
 * stays under {@link #limit()} except for the small window each new stream is guaranteed
 * ({@link MuxSettings#initialWindow()}), which is reserved even past it. Since a stream's
 * buffered bytes never exceed its window, this bounds what peers can make the process hold.
 *
 * <p>The default is half the JVM's direct memory ({@code -XX:MaxDirectMemorySize}, or the heap's
 * maximum when unset): the other half is left to TLS, socket reads and the allocator's pools.
 * {@code transport.tcpMuxMemoryLimit} sets it ({@link #limit(long)}).
 *
 * <p>{@link #directMemoryTight()} says when direct memory itself is nearly used up, whatever
 * holds it: no window grows then ({@link #tryReserve} grants nothing), and the streams that hold
 * the most bytes are squeezed ({@link StreamPressure}) rather than an allocation failing.
 *
 * <p>Thread-safe: shared by every event loop.
 */
public final class MemoryLimit {
    private static final MemoryLimit PROCESS = new MemoryLimit(defaultLimit());
    private static final BufferPoolMXBean DIRECT_POOL = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)
            .stream().filter(p -> "direct".equals(p.getName())).findFirst().orElse(null);
    /** Share of max direct memory above which sessions stop reading. */
    static final double TIGHT = 0.85;

    /** Tests set it to put the process under pressure whatever direct memory is in use. */
    static volatile boolean forcedTight;

    private final AtomicLong reserved = new AtomicLong();
    private volatile long limit;

    MemoryLimit(long limit) {
        this.limit = limit;
    }

    /** The one instance of the process. */
    public static MemoryLimit process() {
        return PROCESS;
    }

    /** Half the JVM's maximum direct memory. */
    public static long defaultLimit() {
        return PlatformDependent.maxDirectMemory() / 2;
    }

    /** Sets the cap in bytes; 0 restores {@link #defaultLimit()}. */
    public void limit(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("memory limit: " + bytes + " (expected: >= 0)");
        }
        limit = bytes == 0 ? defaultLimit() : bytes;
    }

    public long limit() {
        return limit;
    }

    /** Bytes of receive window reserved now, over all sessions. */
    public long reserved() {
        return reserved.get();
    }

    /**
     * Reserves up to {@code wanted} bytes within the limit; returns what it reserved: maybe 0, and
     * 0 while direct memory is tight.
     */
    int tryReserve(int wanted) {
        if (directMemoryTight()) {
            return 0;
        }
        while (wanted > 0) {
            long now = reserved.get();
            long room = limit - now;
            if (room <= 0) {
                return 0;
            }
            int granted = (int) Math.min(wanted, room);
            if (reserved.compareAndSet(now, now + granted)) {
                return granted;
            }
        }
        return 0;
    }

    /** Reserves {@code bytes} even past the limit: a new stream's guaranteed window. */
    void forceReserve(int bytes) {
        reserved.addAndGet(bytes);
    }

    void release(int bytes) {
        reserved.addAndGet(-bytes);
    }

    /** Direct memory in use: Netty's own counter (if it counts) plus the JDK's direct buffers. */
    static long usedDirectMemory() {
        long netty = Math.max(0, PlatformDependent.usedDirectMemory());
        long jdk = DIRECT_POOL == null ? 0 : Math.max(0, DIRECT_POOL.getMemoryUsed());
        return netty + jdk;
    }

    /** True when less than {@code 1 - TIGHT} of max direct memory is left. */
    static boolean directMemoryTight() {
        return forcedTight || usedDirectMemory() > TIGHT * PlatformDependent.maxDirectMemory();
    }
}
