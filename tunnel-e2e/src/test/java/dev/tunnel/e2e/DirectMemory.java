package dev.tunnel.e2e;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.buffer.PooledByteBufAllocator;

/**
 * Direct memory held by Netty's allocators in this JVM, where the server and the client of a
 * test both run. Counts {@link PooledByteBufAllocator#DEFAULT} and, when it is a different
 * one (Netty 4.2 defaults to the adaptive allocator), {@link ByteBufAllocator#DEFAULT}, which
 * is what channels allocate from unless configured otherwise.
 */
final class DirectMemory {
    private DirectMemory() {
    }

    static long used() {
        long used = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        ByteBufAllocator channels = ByteBufAllocator.DEFAULT;
        if (channels != PooledByteBufAllocator.DEFAULT && channels instanceof ByteBufAllocatorMetricProvider metrics) {
            used += metrics.metric().usedDirectMemory();
        }
        return used;
    }
}
