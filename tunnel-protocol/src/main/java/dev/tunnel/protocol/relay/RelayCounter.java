package dev.tunnel.protocol.relay;

/**
 * Where a relay counts the bytes it moves for one proxy: bytes read from the relayed socket (the
 * public connection on the server, the local-app connection on the client) and bytes written to
 * it. The relays call it on their event loops, once per read or write, with no allocation;
 * {@link TrafficCounter} is the implementation readers (the dashboard) can read from any thread.
 */
public interface RelayCounter {

    /** Counts nothing. */
    RelayCounter NONE = new RelayCounter() {
        @Override
        public void read(int bytes) {
        }

        @Override
        public void written(int bytes) {
        }
    };

    /** {@code bytes} were read from the relayed socket. */
    void read(int bytes);

    /** {@code bytes} were handed to the relayed socket to write. */
    void written(int bytes);
}
