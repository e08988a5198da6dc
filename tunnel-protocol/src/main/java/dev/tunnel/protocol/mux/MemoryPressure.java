package dev.tunnel.protocol.mux;

import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.PlatformDependent;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Memory pressure on one session: when direct memory is nearly used up
 * ({@link MemoryLimit#directMemoryTight()}, checked after each read batch), the session stops
 * reading its connection and its streams stop taking writes ({@link #isPaused()}), instead of
 * letting an allocation fail and take the session down. Bytes already buffered keep draining; a
 * timer checks every {@link #CHECK_MILLIS} and resumes reading once memory is below the mark
 * again, then tells the streams that were refused a write meanwhile. Nothing is closed for it.
 *
 * <p>Threading: the session's event loop only.
 */
final class MemoryPressure {
    private static final Logger log = LoggerFactory.getLogger(MuxSession.class);
    static final long CHECK_MILLIS = 20;

    private final Channel channel;
    /** Streams refused a write while paused, told once reading resumes. */
    private final ArrayDeque<MuxStream> waiting = new ArrayDeque<>();
    private boolean paused;
    private ScheduledFuture<?> check;

    MemoryPressure(Channel channel) {
        this.channel = channel;
    }

    boolean isPaused() {
        return paused;
    }

    /** A read batch ended: pause if memory is tight. */
    void afterRead() {
        if (!paused && MemoryLimit.directMemoryTight()) {
            paused = true;
            channel.config().setAutoRead(false);
            log.warn("{} direct memory nearly used up ({} of {} MiB): reading paused until it frees", channel,
                    MemoryLimit.usedDirectMemory() >> 20, PlatformDependent.maxDirectMemory() >> 20);
            check = channel.eventLoop().scheduleWithFixedDelay(() -> {
                if (!MemoryLimit.directMemoryTight()) {
                    resume();
                }
            }, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** {@code stream} was refused a write while paused: it hears {@code onWritable} on resuming. */
    void await(MuxStream stream) {
        if (!stream.awaitingMemory) {
            stream.awaitingMemory = true;
            waiting.add(stream);
        }
    }

    private void resume() {
        paused = false;
        check.cancel(false);
        check = null;
        log.info("{} direct memory available again: reading resumed", channel);
        channel.config().setAutoRead(true);
        MuxStream stream;
        while (!paused && (stream = waiting.poll()) != null) {
            stream.awaitingMemory = false;
            stream.notifyWritable();
        }
    }

    void stop() {
        if (check != null) {
            check.cancel(false);
        }
        waiting.clear();
    }
}
