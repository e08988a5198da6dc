package dev.tunnel.protocol.mux;

/** Accepts streams the peer opens. Called on the session's event loop. */
@FunctionalInterface
public interface StreamAcceptor {
    /**
     * A new stream for proxy {@code proxyId}. The acceptor must set the stream's handler before
     * returning (data may follow in the same read), or reset the stream.
     */
    void accept(MuxStream stream, int proxyId, String source);
}
