package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.Frame;
import dev.tunnel.protocol.LaneFrame;
import dev.tunnel.protocol.ResetCode;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lane owner's part in moving streams from a session's express owner to its bulk owner (see
 * {@link MuxSession}, "Lanes"; the wire is in {@code docs/protocol.md}, "Express lane"): asking
 * for a move, answering one, handing a stream and its socket over, landing it, and routing the
 * frames of streams this owner does not hold.
 *
 * <h3>A move</h3>
 * The express owner asks (a {@link LaneFrame} request) when a stream {@linkplain
 * MuxStream#turnedBulk turned bulk} and can move, and publishes the stream's {@link Handoff}
 * then, before the peer can send anything of it on the bulk lane. On the peer's request or
 * marker it writes its own marker behind its last frame of the stream on the express lane and
 * hands the stream to the bulk owner ({@link #beginMove}), which {@linkplain #land lands} it once
 * the socket is registered on its loop.
 *
 * <h3>Staying</h3>
 * A side that asked, and whose stream can no longer move when the peer's marker comes (the bulk
 * lane is closing, or the stream's handler cannot follow it any more), keeps the stream on the
 * express owner ({@link #stay}): the peer's frames of it now come on the bulk lane, and the bulk
 * owner hands each to the express owner's loop; this side's own frames go on on the express
 * lane, as the protocol allows (each side's marker concerns only its own frames). Slower than a
 * move (a task per frame), and never reached when the handler stays movable.
 *
 * <p>Threading: each instance runs on its owner's event loop; what crosses to the other owner
 * goes through the stream's {@link Handoff} or a task on the other loop.
 */
final class StreamMoves {
    /** The session's logger: a move is part of the session's story, and configured with it. */
    private static final Logger log = LoggerFactory.getLogger(MuxSession.class);

    /** How long frames may wait for a lane marker before their stream is reset, by default. */
    static final long DEFAULT_MARKER_TIMEOUT_MILLIS = 30_000;

    private final MuxSession owner;
    private final SessionShare share;
    /** How long frames may wait for a lane marker before their stream is reset. */
    long markerTimeoutMillis = DEFAULT_MARKER_TIMEOUT_MILLIS;

    StreamMoves(MuxSession owner, SessionShare share) {
        this.owner = owner;
        this.share = share;
    }

    private boolean onExpressOwner() {
        return owner.expressOwner() == null;
    }

    /**
     * Asks to move {@code stream}, which turned bulk here, right after it sent DATA: the peer
     * answers with its marker, and this side moves when it reads it. Express owner.
     */
    void afterData(MuxStream stream, long nowNanos) {
        if (!stream.moveAsked && owner.bulkOwner() != null && stream.turnedBulk(nowNanos) && canMove(stream)) {
            stream.moveAsked = true;
            share.publish(stream.id());
            owner.writeFrame(new LaneFrame(stream.id(), true));
        }
    }

    /** A lane request or marker of {@code stream}, from the express lane (read here, or forwarded here). */
    void onLaneFrame(MuxStream stream, LaneFrame frame) {
        boolean express = onExpressOwner();
        if (frame.request()) {
            if (express && !stream.moving && canMove(stream)) {
                beginMove(stream);
            } // else it stays on the express lane: the peer sends nothing on the bulk lane without our marker
            return;
        }
        // the peer's frames of the stream come on the bulk lane from now on
        stream.onLaneFrame(LaneOrder.EXPRESS, frame, System.nanoTime());
        if (express && !stream.moving && !stream.isClosed()) {
            if (canMove(stream)) {
                beginMove(stream);
            } else {
                stay(stream);
            }
        }
    }

    /** Whether {@code stream} may move to the bulk owner now (express owner). */
    private boolean canMove(MuxStream stream) {
        MuxSession to = owner.bulkOwner();
        return to != null && to.channel().isActive() && stream.canMove();
    }

    /**
     * Hands {@code stream} to the bulk owner: the marker goes on the express lane behind the
     * stream's last frame there, then the stream leaves this owner, its socket moves to the bulk
     * owner's loop, and it lands there.
     */
    private void beginMove(MuxStream stream) {
        stream.moveAsked = true;
        stream.moving = true;
        Handoff handoff = share.publish(stream.id());
        owner.writeFrame(new LaneFrame(stream.id()));
        owner.flushSockets(); // the stream's socket among them: it is not flushed from this loop once it left
        owner.detach(stream);
        share.moved();
        if (log.isTraceEnabled()) {
            log.trace("{} {} moves to the bulk lane", owner.channel(), stream);
        }
        MuxSession to = owner.bulkOwner();
        stream.leave(to.eventLoop(), failure -> to.onLoop(() -> to.moves().land(stream, handoff, failure)));
    }

    /**
     * {@code stream} arrives from the express owner, its socket registered on this loop (or the
     * move failed: {@code failure}): it takes what waited in its hand-off and goes on. Bulk owner.
     */
    private void land(MuxStream stream, Handoff handoff, Throwable failure) {
        stream.arrive(owner);
        ArrayDeque<Handoff.Arrival> arrived = handoff.settle(owner);
        if (stream.isClosed() || arrived == null || !owner.channel().isActive()) {
            release(arrived);
            if (stream.isClosed()) {
                stream.resetAfterMove();
            } else if (arrived == null && handoff.overflowed()) {
                owner.adopt(stream);
                stream.fail(ResetCode.FLOW_CONTROL_ERROR, "the peer sent more than its credit while the stream moved");
            } else {
                stream.onSessionClosed();
            }
            owner.remove(stream);
            return;
        }
        owner.adopt(stream);
        if (failure != null) {
            log.debug("{} {} could not move to the bulk lane's loop: {}", owner.channel(), stream, failure.toString());
            stream.reset(ResetCode.CANCEL);
            release(arrived);
            return;
        }
        if (log.isDebugEnabled()) {
            log.debug("{} {} moved to the bulk lane ({} frames waited for it)", owner.channel(), stream, arrived.size());
        }
        deliver(arrived);
        stream.landed();
        owner.flushSockets(); // not in a read of this lane: nothing else flushes what the frames wrote
    }

    /**
     * The peer moved {@code stream}, which asked and cannot move now: it stays here, takes the
     * frames of it the bulk owner held, and the bulk owner forwards the rest. Express owner.
     */
    private void stay(MuxStream stream) {
        Handoff handoff = share.handoff(stream.id());
        ArrayDeque<Handoff.Arrival> arrived = handoff != null ? handoff.settle(owner) : null;
        if (arrived == null) {
            stream.fail(ResetCode.PROTOCOL_ERROR, handoff == null
                    ? "the peer moved it to the bulk lane unasked"
                    : "the peer sent more than its credit on the bulk lane before its marker");
            return;
        }
        log.debug("{} {} stays on the express lane, the peer's frames of it come on the bulk lane",
                owner.channel(), stream);
        deliver(arrived);
    }

    /**
     * A frame of stream that this owner does not hold, read from its own connection: it waits in
     * the stream's hand-off while the stream is between owners, goes to the owner the stream
     * settled on, or is dropped (the stream is gone).
     */
    void route(int lane, Frame frame) {
        Handoff handoff = share.handoff(frame.streamId());
        if (handoff == null) {
            ReferenceCountUtil.release(frame);
            log.trace("{} {} for closed stream {} dropped", owner.channel(), frame.getClass().getSimpleName(),
                    frame.streamId());
        } else if (!handoff.offer(lane, frame)) {
            MuxSession to = handoff.holder();
            if (to == owner) {
                ReferenceCountUtil.release(frame); // it left the map here: closed, its hand-off about to go
            } else {
                to.eventLoop().execute(() -> to.moves().onForwarded(lane, frame));
            }
        }
    }

    /** A frame the other owner read for a stream this owner holds. */
    private void onForwarded(int lane, Frame frame) {
        owner.onStreamFrame(lane, frame, false);
        owner.flushSockets();
    }

    private void deliver(ArrayDeque<Handoff.Arrival> arrived) {
        Handoff.Arrival a;
        while ((a = arrived.poll()) != null) {
            owner.onStreamFrame(a.lane(), a.frame(), false);
        }
    }

    private static void release(ArrayDeque<Handoff.Arrival> arrived) {
        if (arrived != null) {
            arrived.forEach(a -> ReferenceCountUtil.release(a.frame()));
        }
    }

    /**
     * {@code stream} started holding frames for a lane marker: reset it if they are still held
     * after {@link #markerTimeoutMillis}.
     */
    void watchHeld(MuxStream stream) {
        long since = stream.order.heldSinceNanos();
        owner.eventLoop().schedule(() -> {
            boolean stillHere = stream.session() == owner && (!onExpressOwner() || !stream.moving);
            if (stillHere && !stream.isClosed() && stream.order.holding() && stream.order.heldSinceNanos() == since) {
                int waitingOn = stream.order.lane();
                stream.fail(ResetCode.PROTOCOL_ERROR, stream.order.heldBytes() + " bytes waited "
                        + markerTimeoutMillis + " ms on the " + LaneOrder.name(waitingOn ^ 1)
                        + " lane for the peer's lane marker on the " + LaneOrder.name(waitingOn) + " lane");
            }
        }, markerTimeoutMillis, TimeUnit.MILLISECONDS);
    }
}
