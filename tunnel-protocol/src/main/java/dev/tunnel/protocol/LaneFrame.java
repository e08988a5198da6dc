package dev.tunnel.protocol;

/**
 * The express-lane ordering marker (capability {@link Capabilities#EXPRESS_LANE}): the sender's
 * next DATA of stream {@code streamId} travels on the session's other lane. Sent on the lane the
 * stream's DATA used so far, behind its last frame there; the receiver holds what arrives on the
 * other lane for that stream until this marker arrives. No payload.
 */
public record LaneFrame(int streamId) implements Frame {
}
