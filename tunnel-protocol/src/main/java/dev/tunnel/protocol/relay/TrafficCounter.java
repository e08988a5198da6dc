package dev.tunnel.protocol.relay;

import io.netty.channel.Channel;
import java.util.concurrent.atomic.LongAdder;

/**
 * The traffic of one proxy on one side: bytes each way and connections, total and open. Written
 * by every event loop that carries one of the proxy's connections, read from any thread; each
 * count is a {@link LongAdder}, so writers on different loops do not contend and adding
 * allocates nothing. A {@link #snapshot()} is consistent per field, not across fields.
 */
public final class TrafficCounter implements RelayCounter {
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder connections = new LongAdder();
    private final LongAdder open = new LongAdder();

    /** Bytes, connections and open connections at one moment. */
    public record Snapshot(long bytesRead, long bytesWritten, long connections, long open) {
    }

    @Override
    public void read(int bytes) {
        bytesRead.add(bytes);
    }

    @Override
    public void written(int bytes) {
        bytesWritten.add(bytes);
    }

    /** Counts {@code socket} as a connection of this proxy until it closes (one listener per connection). */
    public void track(Channel socket) {
        connections.increment();
        open.increment();
        socket.closeFuture().addListener(f -> open.decrement());
    }

    public Snapshot snapshot() {
        return new Snapshot(bytesRead.sum(), bytesWritten.sum(), connections.sum(), open.sum());
    }
}
