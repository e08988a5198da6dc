package dev.tunnel.protocol.mux;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The receive budget of one session: the sum of its streams' receive windows stays under
 * {@link MuxSettings#sessionWindow()} (apart from each stream's guaranteed window) and counts
 * against the process's {@link MemoryLimit}. Also counts the session's open streams.
 *
 * <p>Threading: written only on the session's event loop; {@link #committed()} and
 * {@link #streams()} may be read from any thread (a dashboard).
 */
final class SessionBudget implements ReceiveWindow.Budget {
    private final MuxSettings settings;
    private final MemoryLimit memory = MemoryLimit.process();
    /** Sum of the receive windows of the session's streams. */
    private final AtomicLong committed = new AtomicLong();
    private volatile int streams;

    SessionBudget(MuxSettings settings) {
        this.settings = settings;
    }

    /** A stream opened with {@code window} bytes of receive window, guaranteed. */
    void opened(int window) {
        streams++; // single writer: the event loop
        committed.addAndGet(window);
        memory.forceReserve(window);
    }

    /** A stream is gone and gives back its receive window (once per stream). */
    void closed(int window) {
        streams--;
        committed.addAndGet(-window);
        memory.release(window);
    }

    int streams() {
        return streams;
    }

    long committed() {
        return committed.get();
    }

    /**
     * A stream may grow into half of what the session has not committed yet (so a second
     * draining stream always finds room) and what the process limit leaves. Streams that do not
     * drain never grow, so they cannot take this from streams that do.
     */
    @Override
    public int grant(ReceiveWindow window, int wanted) {
        long now = committed.get();
        long room = (settings.sessionWindow() - now) / 2;
        int want = (int) Math.max(0, Math.min(wanted, room));
        if (want == 0) {
            return 0;
        }
        int got = memory.tryReserve(want);
        committed.addAndGet(got);
        return got;
    }

    @Override
    public void release(int bytes) {
        committed.addAndGet(-bytes);
        memory.release(bytes);
    }
}
