package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.DataFrame;
import dev.tunnel.protocol.Frame;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * A stream on its way from a session's express-lane owner to its bulk-lane owner (see
 * {@link StreamMoves}): published when this side first asks for or answers a move, and kept
 * until the stream is gone, so that both owners can route a frame of a stream they do not hold.
 *
 * <p>Until the stream {@linkplain #settle settles} on an owner (it lands on the bulk owner, or
 * stays on the express owner), frames of it that the other owner receives wait here, in arrival
 * order, each with the lane it came on. Once settled, {@link #offer} refuses, and the owner that
 * does not hold the stream hands what it still receives for it to the {@link #holder}'s loop as
 * tasks: after a move, the peer's express-lane frames sent before its marker (about one round
 * trip of them); after a stay, every frame the peer sends on the bulk lane.
 *
 * <h3>Bounds</h3>
 * What waits is bounded by {@code limit} bytes (each frame counts {@link LaneOrder#FRAME_OVERHEAD}
 * beyond its payload; a peer within its credit never gets near): beyond it, frames are dropped
 * and the stream is reset with FLOW_CONTROL_ERROR when it settles. The time frames wait is that of
 * the move itself (a socket re-registering on another loop): a peer sends on the bulk lane only
 * after this side's request or marker, and this side moves as soon as it reads the peer's marker.
 *
 * <h3>Threading</h3>
 * Shared by the two owners' loops; every method is synchronized (a few calls per stream move).
 * Frames handed here are owned here until they are returned by {@link #settle} or released.
 */
final class Handoff {
    /** A frame and the lane it arrived on. */
    record Arrival(int lane, Frame frame) {
    }

    private final long limit;
    private ArrayDeque<Arrival> waiting = new ArrayDeque<>(4);
    private long bytes;
    private boolean overflowed;
    /** The owner the stream settled on, or null while it is between owners. */
    private MuxSession holder;
    private boolean closed;

    Handoff(long limit) {
        this.limit = limit;
    }

    /**
     * Keeps {@code frame} (ownership passes) until the stream settles; false if it has settled,
     * and then the caller still owns the frame (for the {@link #holder}). A frame for a closed
     * hand-off is released.
     */
    synchronized boolean offer(int lane, Frame frame) {
        if (closed) {
            ReferenceCountUtil.release(frame);
            return true;
        }
        if (holder != null) {
            return false;
        }
        long size = LaneOrder.FRAME_OVERHEAD + (frame instanceof DataFrame data ? data.content().readableBytes() : 0);
        if (overflowed || bytes + size > limit) {
            overflowed = true;
            ReferenceCountUtil.release(frame);
            return true;
        }
        bytes += size;
        waiting.add(new Arrival(lane, frame));
        return true;
    }

    /**
     * The stream is on {@code holder} now, for good: returns what waited (the caller owns it), or
     * null if more arrived than {@code limit} allows (what waited is released; reset the stream)
     * or the hand-off was closed.
     */
    synchronized ArrayDeque<Arrival> settle(MuxSession holder) {
        this.holder = holder;
        ArrayDeque<Arrival> arrived = waiting;
        waiting = null;
        bytes = 0;
        if (closed || overflowed) {
            release(arrived);
            return null;
        }
        return arrived;
    }

    /** The owner the stream settled on, or null while it is between owners. */
    synchronized MuxSession holder() {
        return holder;
    }

    /** Whether more arrived than the limit allowed. */
    synchronized boolean overflowed() {
        return overflowed;
    }

    /** The stream is gone (or the session): what waits is released, and whatever arrives later. */
    synchronized void close() {
        closed = true;
        release(waiting);
        waiting = null;
        bytes = 0;
    }

    private static void release(ArrayDeque<Arrival> arrivals) {
        if (arrivals != null) {
            Arrival a;
            while ((a = arrivals.poll()) != null) {
                ReferenceCountUtil.release(a.frame());
            }
        }
    }
}
