package dev.tunnel.server.web;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.util.internal.PlatformDependent;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The process's and the JVM's figures for {@code /metrics}, by the Prometheus Java client's JVM
 * instrumentation: {@code process_resident_memory_bytes}, {@code process_open_fds},
 * {@code process_cpu_seconds_total}, {@code jvm_gc_collection_seconds}, {@code jvm_threads_*},
 * {@code jvm_memory_*}, {@code jvm_buffer_pool_*} and the rest of its standard set; plus
 * {@code tunnel_netty_direct_memory_used_bytes}, the direct memory Netty's buffers hold now
 * ({@code -XX:MaxDirectMemorySize} bounds it).
 *
 * <p>One registry per process, filled at the first scrape: a server that is never scraped loads
 * none of it. Threading: any thread (the registry and the beans it reads are thread-safe).
 */
final class RuntimeMetrics {

    private RuntimeMetrics() {
    }

    /** Registered on first use (class initialisation is the JVM's own once-only lock). */
    private static final class Jvm {
        static final PrometheusRegistry REGISTRY = new PrometheusRegistry();

        static {
            JvmMetrics.builder().register(REGISTRY);
        }
    }

    /** Adds the process's, the JVM's and Netty's figures to {@code out}. */
    static void addTo(MetricSnapshots.Builder out) {
        for (MetricSnapshot s : Jvm.REGISTRY.scrape()) {
            out.metricSnapshot(s);
        }
        out.metricSnapshot(GaugeSnapshot.builder().name("tunnel_netty_direct_memory_used_bytes")
                .help("Direct memory Netty's buffers hold now (bounded by -XX:MaxDirectMemorySize)")
                .dataPoint(GaugeDataPointSnapshot.builder().value(nettyDirectMemory()).labels(Labels.EMPTY).build())
                .build());
    }

    /** Netty's own count when it tracks direct memory itself, else its allocator's. */
    static long nettyDirectMemory() {
        long used = PlatformDependent.usedDirectMemory();
        if (used >= 0) {
            return used;
        }
        return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider
                ? provider.metric().usedDirectMemory() : 0;
    }
}
