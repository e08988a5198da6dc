package dev.tunnel.protocol;

/**
 * Moves a stream to the session's bulk lane (capability {@link Capabilities#EXPRESS_LANE}); sent
 * on the express lane, no payload.
 *
 * <p>With {@code request} ({@link Frame#FLAG_MOVE_REQUEST}): the sender's side of stream
 * {@code streamId} turned bulk and asks to move it; from now on it holds what arrives for the
 * stream on the bulk lane. Without: a marker, sent in answer to a request or to the peer's
 * marker, behind the sender's last frame of the stream on the express lane; every later frame of
 * the stream (DATA, WINDOW_UPDATE, RESET) comes on the bulk lane.
 */
public record LaneFrame(int streamId, boolean request) implements Frame {
    /** A marker (not a request). */
    public LaneFrame(int streamId) {
        this(streamId, false);
    }
}
