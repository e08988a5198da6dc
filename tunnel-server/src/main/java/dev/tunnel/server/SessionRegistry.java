package dev.tunnel.server;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The logged-in client sessions, by session id (work connections name theirs) and by the
 * client's run id (one per client process). A login with a run id that already has a session
 * evicts the old one: that is the same client process coming back, and its old session is a
 * ghost (a half-open connection the server has not noticed yet) whose ports the new one needs.
 *
 * <p>Threading: sessions run on different event loops; the maps are concurrent.
 */
final class SessionRegistry {
    private final Map<String, ClientSession> byId = new ConcurrentHashMap<>();
    private final Map<String, ClientSession> byRunId = new ConcurrentHashMap<>();

    /**
     * Adds {@code session}; returns a future that completes once the session it replaces (same
     * run id), if any, has released its ports and closed its listeners.
     */
    Future<?> register(ClientSession session) {
        byId.put(session.id(), session);
        ClientSession old = byRunId.put(session.runId(), session);
        if (old == null || old == session) {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
        }
        byId.remove(old.id(), old);
        return old.evict("the same client (run id " + session.runId() + ") logged in again as session "
                + session.id());
    }

    void unregister(ClientSession session) {
        byId.remove(session.id(), session);
        byRunId.remove(session.runId(), session);
    }

    ClientSession find(String sessionId) {
        return byId.get(sessionId);
    }

    /**
     * The loop of {@code current}'s group that runs the fewest logged-in sessions, {@code current}
     * itself on a tie: where a new session should run, so that sessions spread over the loops
     * however their connections happened to be accepted. Two logins at the same moment may both
     * pick one loop.
     */
    EventLoop quietestLoop(EventLoop current) {
        if (current.parent() == null) {
            return current;
        }
        Map<EventExecutor, Integer> sessions = new HashMap<>();
        for (ClientSession s : byId.values()) {
            sessions.merge(s.mux().eventLoop(), 1, Integer::sum);
        }
        EventLoop quietest = current;
        int fewest = sessions.getOrDefault(current, 0);
        for (EventExecutor loop : current.parent()) {
            int n = sessions.getOrDefault(loop, 0);
            if (n < fewest && loop instanceof EventLoop candidate) {
                quietest = candidate;
                fewest = n;
            }
        }
        return quietest;
    }

    List<ClientSession> all() {
        return new ArrayList<>(byId.values());
    }
}
