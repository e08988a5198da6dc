package dev.tunnel.protocol.mux;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the owners of one session's lanes share (see {@link MuxSession}, "Lanes"): the session's
 * receive-window budget, its count of open streams and the streams between owners. Without a
 * bulk lane, only the session's one owner uses it.
 *
 * <p>Threading: thread-safe; the express owner and the bulk owner run on different loops.
 */
final class SessionShare {
    private final MuxSettings settings;
    private final MemoryLimit memory = MemoryLimit.process();
    /** Sum of the receive windows of the session's streams, on both owners. */
    private final AtomicLong committed = new AtomicLong();
    private final AtomicInteger streams = new AtomicInteger();
    private final AtomicLong laneMoves = new AtomicLong();
    private final ConcurrentHashMap<Integer, Handoff> transit = new ConcurrentHashMap<>();
    final ReceiveWindow.Budget budget = new Budget();

    SessionShare(MuxSettings settings) {
        this.settings = settings;
    }

    /** A stream opened with {@code window} bytes of receive window, guaranteed. */
    void opened(int window) {
        streams.incrementAndGet();
        committed.addAndGet(window);
        memory.forceReserve(window);
    }

    /** A stream is gone and gives back its receive window (once per stream). */
    void closed(int window) {
        streams.decrementAndGet();
        committed.addAndGet(-window);
        memory.release(window);
    }

    int streams() {
        return streams.get();
    }

    long committed() {
        return committed.get();
    }

    long laneMoves() {
        return laneMoves.get();
    }

    void moved() {
        laneMoves.incrementAndGet();
    }

    /** The hand-off of stream {@code id}, created when absent. */
    Handoff publish(int id) {
        return transit.computeIfAbsent(id, k -> new Handoff(2L * settings.maxWindow() + 16 * 1024));
    }

    /** The hand-off of stream {@code id}, or null: the stream never asked to move, or is gone. */
    Handoff handoff(int id) {
        return transit.get(id);
    }

    /** Stream {@code id} is gone: its hand-off is closed and forgotten. */
    void unpublish(int id) {
        Handoff h = transit.remove(id);
        if (h != null) {
            h.close();
        }
    }

    /** The session is gone: every hand-off is closed. */
    void closeAll() {
        transit.values().forEach(Handoff::close);
        transit.clear();
    }

    /**
     * A stream may grow into half of what the session has not committed yet (so a second
     * draining stream always finds room) and what the process limit leaves. Streams that do not
     * drain never grow, so they cannot take this from streams that do.
     */
    private final class Budget implements ReceiveWindow.Budget {
        @Override
        public int grant(ReceiveWindow window, int wanted) {
            while (true) {
                long now = committed.get();
                long room = (settings.sessionWindow() - now) / 2;
                int want = (int) Math.max(0, Math.min(wanted, room));
                if (want == 0) {
                    return 0;
                }
                if (committed.compareAndSet(now, now + want)) {
                    int got = memory.tryReserve(want);
                    if (got < want) {
                        committed.addAndGet(got - want);
                    }
                    return got;
                }
            }
        }

        @Override
        public void release(int bytes) {
            committed.addAndGet(-bytes);
            memory.release(bytes);
        }
    }
}
