package dev.tunnel.protocol;

/** A control message on stream 0 (login, proxies, heartbeats). */
public record ControlFrame(ControlMessage message) implements Frame {
    @Override
    public int streamId() {
        return 0;
    }
}
