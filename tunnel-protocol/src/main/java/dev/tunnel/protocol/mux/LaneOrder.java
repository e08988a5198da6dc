package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.LaneFrame;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * Receive-side order of one stream whose DATA may come on either lane of a session
 * ({@link #EXPRESS}, {@link #BULK}). The sender sends a stream's DATA on one lane at a time and,
 * when it moves the stream, a {@link LaneFrame} marker on the lane it leaves, behind the last
 * DATA it sent there.
 *
 * <p>Invariant: DATA is delivered in the sender's order. Frames of this stream that arrive on the
 * lane it is not reading ({@link #lane()}) are held; the marker on the lane it reads switches it
 * to the other lane and replays what was held there, in arrival order (which may hold again
 * behind a second marker among them).
 *
 * <p>Memory: what is held is bounded by {@code limit} per stream (the stream's receive window,
 * which a sender within its credit never exceeds); each held frame counts
 * {@link #FRAME_OVERHEAD} bytes beyond its payload, so markers alone cannot grow the queue either.
 *
 * <p>Not thread-safe: used only on the event loop of the lane owner that holds the stream.
 */
final class LaneOrder {
    static final int EXPRESS = 0;
    static final int BULK = 1;
    /** What a held frame counts for besides its payload. */
    static final int FRAME_OVERHEAD = 64;

    /** Receives the frames in order. */
    interface Sink {
        void deliver(DataFrame frame);
    }

    private int lane = EXPRESS;
    private ArrayDeque<Frame> held;
    private long heldBytes;
    private long heldSinceNanos;
    /** The stream is gone: frames are dropped on arrival. */
    private boolean released;

    /** The lane whose frames are delivered now. */
    int lane() {
        return lane;
    }

    /** Whether frames wait for a marker. */
    boolean holding() {
        return held != null && !held.isEmpty();
    }

    /** When the oldest held frame arrived (valid while {@link #holding()}). */
    long heldSinceNanos() {
        return heldSinceNanos;
    }

    long heldBytes() {
        return heldBytes;
    }

    /**
     * Takes a {@link DataFrame} or a {@link LaneFrame} that arrived on {@code arrivedOn} (ownership
     * passes here) and delivers what is in order to {@code sink}.
     *
     * @param limit bytes that may be held for this stream
     * @return null, or why the frame was refused (it is released; the stream must be aborted)
     */
    String offer(int arrivedOn, Frame frame, long limit, long nowNanos, Sink sink) {
        if (released) {
            ReferenceCountUtil.release(frame);
            return null;
        }
        if (arrivedOn != lane) {
            long size = FRAME_OVERHEAD + (frame instanceof DataFrame data ? data.content().readableBytes() : 0);
            if (heldBytes + size > limit) {
                ReferenceCountUtil.release(frame);
                return "peer sent " + (heldBytes + size) + " bytes on the " + name(arrivedOn)
                        + " lane ahead of its lane marker on the " + name(lane) + " lane (at most " + limit + ")";
            }
            if (held == null) {
                held = new ArrayDeque<>(4);
            }
            if (held.isEmpty()) {
                heldSinceNanos = nowNanos;
            }
            held.add(frame);
            heldBytes += size;
            return null;
        }
        if (frame instanceof LaneFrame) {
            lane ^= 1;
            if (holding()) {
                ArrayDeque<Frame> replay = held;
                held = null;
                heldBytes = 0;
                Frame next;
                String error = null;
                while ((next = replay.poll()) != null) {
                    if (error != null) {
                        ReferenceCountUtil.release(next);
                    } else {
                        error = offer(arrivedOn ^ 1, next, limit, nowNanos, sink);
                    }
                }
                return error;
            }
            return null;
        }
        sink.deliver((DataFrame) frame);
        return null;
    }

    /** Drops what is held, and whatever arrives later (the stream is gone). */
    void release() {
        released = true;
        if (held != null) {
            Frame frame;
            while ((frame = held.poll()) != null) {
                ReferenceCountUtil.release(frame);
            }
        }
        heldBytes = 0;
    }

    static String name(int lane) {
        return lane == EXPRESS ? "express" : "bulk";
    }
}
