package dev.tunnel.protocol;

/**
 * Opens a stream for a public connection of proxy {@code proxyId}. The opener may send DATA
 * right behind it without waiting: the receiver's initial window was announced at login.
 *
 * @param source the public peer's address, for the receiver's logs
 */
public record OpenFrame(int streamId, int proxyId, String source) implements Frame {
}
