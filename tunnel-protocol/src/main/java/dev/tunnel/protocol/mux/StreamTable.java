package dev.tunnel.protocol.mux;

import dev.tunnel.protocol.ProtocolException;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.collection.IntObjectMap;
import java.util.ArrayList;
import java.util.List;

/**
 * The session's open streams by id. This side opens odd ids on the server and even ids on the
 * client, in increasing order; the peer must open its own the same way. A stream's receive window
 * counts against the {@link SessionBudget} from {@link #add} until {@link #remove}, and is given
 * back exactly once.
 *
 * <p>Threading: the session's event loop only.
 */
final class StreamTable {
    private final IntObjectMap<MuxStream> streams = new IntObjectHashMap<>();
    private final boolean server;
    private final SessionBudget budget;
    private final int guaranteedWindow;
    private int nextId;
    private int lastPeerId;

    StreamTable(boolean server, SessionBudget budget, int guaranteedWindow) {
        this.server = server;
        this.budget = budget;
        this.guaranteedWindow = guaranteedWindow;
        this.nextId = server ? 1 : 2;
    }

    /** The id of the next stream this side opens. */
    int nextLocalId() {
        if (nextId < 0) {
            throw new IllegalStateException("stream ids exhausted on this session; reconnect");
        }
        int id = nextId;
        nextId += 2;
        return id;
    }

    /** Checks the id of a stream the peer opens: its parity, and above every one before. */
    void checkPeerId(int id) {
        boolean peerParity = server ? id % 2 == 0 : id % 2 == 1;
        if (!peerParity || Integer.compareUnsigned(id, lastPeerId) <= 0) {
            throw new ProtocolException("peer opened stream " + id + " out of order (last " + lastPeerId + ")");
        }
        lastPeerId = id;
    }

    void add(MuxStream stream) {
        streams.put(stream.id(), stream);
        budget.opened(guaranteedWindow);
    }

    /** The open streams, a live view. */
    java.util.Collection<MuxStream> view() {
        return streams.values();
    }

    MuxStream get(int id) {
        return streams.get(id);
    }

    void remove(MuxStream stream) {
        streams.remove(stream.id());
        release(stream);
    }

    /** Empties the table (the session ended): the streams that were in it. */
    List<MuxStream> removeAll() {
        List<MuxStream> all = new ArrayList<>(streams.values());
        streams.clear();
        all.forEach(this::release);
        return all;
    }

    private void release(MuxStream stream) {
        if (!stream.windowReleased) {
            stream.windowReleased = true;
            budget.closed(stream.window().window());
        }
    }
}
