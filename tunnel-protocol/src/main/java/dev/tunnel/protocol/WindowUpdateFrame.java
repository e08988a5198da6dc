package dev.tunnel.protocol;

/** Gives the peer {@code increment} more bytes of send credit on a stream. */
public record WindowUpdateFrame(int streamId, int increment) implements Frame {
}
