package dev.tunnel.protocol.mux;

import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.PlatformDependent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Memory pressure, landed on the streams that cause it rather than on the connection that every
 * stream of the session shares.
 *
 * <p>When direct memory is nearly used up ({@link MemoryLimit#directMemoryTight()}), every stream
 * of the session holding at least {@link #HOLDING} bytes (received and not yet taken by its
 * consumer, or read from its socket and not yet sent) is squeezed: its receive window goes down to
 * {@link ReceiveWindow#SQUEEZED_WINDOW} as its consumer takes bytes, and its socket is not read
 * ({@link MuxStream#isWritable()} is false), so a slow reader's sender and a fast writer's socket
 * both wait. The tunnel connection keeps being read, so other streams' frames still flow: what
 * arrives on it is bounded by the windows already granted, and the squeezed ones only shrink.
 * While the pressure lasts, a stream that DATA makes heavy is squeezed as it arrives
 * ({@link #afterData}), and a timer looks again every {@link #CHECK_MILLIS} (at the bytes
 * streams read and could not send, too); once memory is no longer tight every squeezed stream
 * is released.
 * Nothing is closed for it.
 *
 * <p>Threading: the session's event loop only.
 */
final class StreamPressure {
    private static final Logger log = LoggerFactory.getLogger(StreamPressure.class);
    /** A stream holding this many bytes or more is squeezed under pressure. */
    static final int HOLDING = ReceiveWindow.SQUEEZED_WINDOW;
    static final long CHECK_MILLIS = 20;

    private final Channel channel;
    private final Collection<MuxStream> streams;
    private final List<MuxStream> squeezed = new ArrayList<>();
    private ScheduledFuture<?> recheck;

    /** @param streams the session's open streams (a live view) */
    StreamPressure(Channel channel, Collection<MuxStream> streams) {
        this.channel = channel;
        this.streams = streams;
    }

    /** After a batch of reads: starts squeezing when memory is tight. Cheap when it is not. */
    void check() {
        if (recheck == null && MemoryLimit.directMemoryTight()) {
            squeezeHeavy();
            log.warn("{} direct memory nearly used up ({} of {} MiB): {} streams holding {} KiB or more get no more"
                            + " credit and are not read until it frees", channel, MemoryLimit.usedDirectMemory() >> 20,
                    PlatformDependent.maxDirectMemory() >> 20, squeezed.size(), HOLDING >> 10);
            recheck = channel.eventLoop().scheduleWithFixedDelay(this::recheck, CHECK_MILLIS, CHECK_MILLIS,
                    TimeUnit.MILLISECONDS);
        }
    }

    /** DATA for {@code stream} arrived: under pressure, a stream that now holds too much is squeezed at once. */
    void afterData(MuxStream stream) {
        if (recheck != null) {
            squeezeIfHeavy(stream);
        }
    }

    /** The session is gone. */
    void stop() {
        if (recheck != null) {
            recheck.cancel(false);
            recheck = null;
        }
        squeezed.clear();
    }

    private void recheck() {
        if (MemoryLimit.directMemoryTight()) {
            squeezeHeavy();
            return;
        }
        recheck.cancel(false);
        recheck = null;
        log.info("{} direct memory available again: {} squeezed streams released", channel, squeezed.size());
        List<MuxStream> released = new ArrayList<>(squeezed);
        squeezed.clear();
        for (MuxStream stream : released) {
            stream.window().unsqueeze();
            if (!stream.isClosed()) {
                stream.afterSending(); // a stream that waited to read may read again
            }
        }
    }

    private void squeezeHeavy() {
        squeezed.removeIf(MuxStream::isClosed);
        for (MuxStream stream : streams) {
            squeezeIfHeavy(stream);
        }
    }

    private void squeezeIfHeavy(MuxStream stream) {
        if (!stream.window().squeezed() && stream.heldBytes() >= HOLDING) {
            stream.window().squeeze();
            squeezed.add(stream);
        }
    }
}
