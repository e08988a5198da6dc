package dev.tunnel.protocol.transport;

import io.netty.util.ResourceLeakDetector;

/**
 * Netty's buffer leak detection is off in the tunnel unless asked for. Netty's default samples
 * one buffer in 128 and records a stack trace for it; perf under keep-alive load put those
 * traces at 3.6 % of the server's CPU. {@code -Dio.netty.leakDetection.level=simple} (or
 * {@code paranoid}, as the tests run) turns it back on.
 *
 * <p>Threading: any thread; idempotent.
 */
final class LeakChecks {
    private LeakChecks() {
    }

    static void defaultOff() {
        if (System.getProperty("io.netty.leakDetection.level") == null
                && System.getProperty("io.netty.leakDetectionLevel") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }
}
