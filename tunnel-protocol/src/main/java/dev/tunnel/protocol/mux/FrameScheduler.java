package dev.tunnel.protocol.mux;

import io.netty.channel.Channel;
import java.util.ArrayDeque;

/**
 * Decides which stream's DATA goes on the tunnel connection next: deficit round robin across
 * the streams that have bytes and credit, with sparse streams served ahead of backlogged ones,
 * as fq_codel treats new flows. Control, OPEN, RESET and WINDOW_UPDATE frames never wait here:
 * {@link MuxSession} writes them at once, so they only ever wait behind the little DATA the
 * connection already holds.
 *
 * <h3>What it keeps small</h3>
 * DATA leaves a stream only while the connection is under its high watermark (kept short by
 * {@link TunnelSocket}), so bytes wait in their own stream's queue, where the next frame is
 * still chosen, rather than in the connection's outbound buffer or the kernel, where they are
 * first in, first out.
 *
 * <h3>Order</h3>
 * A stream that becomes ready is <em>sparse</em> when it sent less than one {@link #QUANTUM} in
 * the last {@link #SPARSE_EPOCH_NANOS}: it joins the new-flow list, served first, with one
 * quantum of credit; once it used it and still has bytes, it moves to the tail of the old-flow
 * list like every backlogged stream. Each visit to a stream of the old list adds one quantum to
 * its deficit and sends frames while the deficit is positive. A stream alone on the connection
 * sends frames of up to {@link MuxStream#MAX_CHUNK}, so a single transfer is not chopped up.
 *
 * <h3>Queueing delay</h3>
 * {@link #queueDelayNanos()} is a moving average of how long a stream waited from becoming
 * ready to its first frame leaving; {@link #maxQueueDelayNanos()} the largest since last asked.
 *
 * <p>Threading: the session's event loop only, apart from the queueing-delay getters (any thread).
 */
final class FrameScheduler {
    /** Bytes a stream may send per round when others wait. One TLS record's worth. */
    static final int QUANTUM = 16 * 1024;
    /** How far back a stream's sending counts when deciding whether it is sparse. */
    static final long SPARSE_EPOCH_NANOS = 20_000_000L;
    /** Smallest frame cut when the connection is near its watermark. */
    private static final int MIN_FRAME = 4096;

    private final Channel channel;
    private final TunnelSocket socket;
    private final ArrayDeque<MuxStream> newFlows = new ArrayDeque<>();
    private final ArrayDeque<MuxStream> oldFlows = new ArrayDeque<>();
    private boolean running;
    /** Written on the event loop, read by a dashboard. */
    private volatile long queueDelayNanos;
    private final java.util.concurrent.atomic.AtomicLong maxQueueDelayNanos = new java.util.concurrent.atomic.AtomicLong();

    FrameScheduler(Channel channel, TunnelSocket socket) {
        this.channel = channel;
        this.socket = socket;
    }

    /** {@code stream} has bytes (or a FIN) to send: queue it and serve what the connection takes. */
    void ready(MuxStream stream, long nowNanos) {
        if (!stream.scheduled) {
            stream.scheduled = true;
            stream.readySinceNanos = nowNanos;
            stream.deficit = QUANTUM;
            if (stream.sentRecently(nowNanos) < QUANTUM) {
                newFlows.add(stream);
            } else {
                oldFlows.add(stream);
            }
        }
        run(nowNanos);
    }

    /** Sends frames, in scheduling order, while the connection is writable. */
    void run(long nowNanos) {
        if (running) {
            return; // a write below made the connection unwritable or a handler wrote: the loop goes on
        }
        running = true;
        try {
            while (channel.isWritable()) {
                ArrayDeque<MuxStream> list = newFlows.isEmpty() ? oldFlows : newFlows;
                MuxStream stream = list.peek();
                if (stream == null) {
                    return;
                }
                if (!stream.hasSendable()) {
                    list.poll();
                    leave(stream);
                    continue;
                }
                if (stream.deficit <= 0) {
                    list.poll();
                    stream.deficit += QUANTUM;
                    oldFlows.add(stream);
                    continue;
                }
                if (stream.readySinceNanos != 0) {
                    sampleDelay(nowNanos - stream.readySinceNanos);
                    stream.readySinceNanos = 0;
                }
                boolean alone = newFlows.size() + oldFlows.size() == 1;
                int limit = alone ? MuxStream.MAX_CHUNK : stream.deficit;
                limit = (int) Math.min(limit, Math.max(MIN_FRAME, channel.bytesBeforeUnwritable()));
                int sent = stream.sendData(limit, nowNanos);
                socket.sent(sent, nowNanos);
                // alone, a stream may overdraw; it still leaves the new-flow list once it used its quantum
                stream.deficit = alone ? Math.max(0, stream.deficit - sent) : stream.deficit - sent;
            }
        } finally {
            running = false;
        }
    }

    /** Drops a stream that was reset or whose session ended. */
    void remove(MuxStream stream) {
        if (stream.scheduled && (newFlows.remove(stream) | oldFlows.remove(stream))) {
            stream.scheduled = false;
        }
    }

    void clear() {
        newFlows.clear();
        oldFlows.clear();
    }

    long queueDelayNanos() {
        return queueDelayNanos;
    }

    /** The largest wait since the last call (any thread). */
    long takeMaxQueueDelayNanos() {
        return maxQueueDelayNanos.getAndSet(0);
    }

    private void leave(MuxStream stream) {
        stream.scheduled = false;
        stream.afterSending();
    }

    private void sampleDelay(long nanos) {
        queueDelayNanos = queueDelayNanos == 0 ? nanos : (7 * queueDelayNanos + nanos) / 8;
        if (nanos > maxQueueDelayNanos.get()) {
            maxQueueDelayNanos.accumulateAndGet(nanos, Math::max);
        }
    }
}
