package dev.tunnel.protocol;

/** Aborts a stream at both ends; {@code code} is one of {@link ResetCode}. */
public record ResetFrame(int streamId, int code) implements Frame {
}
