package dev.tunnel.server;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
 * It also counts the logged-in sessions per client address, for {@link ConnectionGate}, and holds
 * each user's frp {@code clientID}s: as in frp ({@code ClientRegistry}), a login with a clientID
 * that another client process (another run id) of the same user holds online is refused, while
 * the same process logging in again takes it over.
 *
 * <p>Threading: sessions run on different event loops; the maps are concurrent.
 */
final class SessionRegistry {
    private final Map<String, ClientSession> byId = new ConcurrentHashMap<>();
    private final Map<String, ClientSession> byRunId = new ConcurrentHashMap<>();
    /** Logged-in sessions per client address. */
    private final Map<InetAddress, Integer> addresses = new ConcurrentHashMap<>();
    /** {@code user + "." + clientID} of the clients that set one, and who holds it. */
    private final Map<String, ClientIdHolder> clientIds = new ConcurrentHashMap<>();

    /** The session ({@code sessionId}, of client process {@code runId}) that holds a clientID. */
    record ClientIdHolder(String runId, String sessionId) {
    }

    /**
     * Claims {@code clientId} of {@code user} for a session about to start; call before the
     * session is created, and {@link #unregister} releases it. An empty clientID is never held.
     *
     * @return null when claimed, else the holder: an online session of another client process
     */
    ClientIdHolder claimClientId(String user, String clientId, String runId, String sessionId) {
        if (clientId.isEmpty()) {
            return null;
        }
        ClientIdHolder mine = new ClientIdHolder(runId, sessionId);
        ClientIdHolder holder = clientIds.compute(user + "." + clientId,
                (key, current) -> current == null || current.runId().equals(runId) ? mine : current);
        return holder == mine ? null : holder;
    }

    /**
     * Adds {@code session}; returns a future that completes once the session it replaces (same
     * run id), if any, has released its ports and closed its listeners.
     */
    Future<?> register(ClientSession session) {
        if (byId.put(session.id(), session) == null) {
            count(session, 1);
        }
        ClientSession old = byRunId.put(session.runId(), session);
        if (old == null || old == session) {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(null);
        }
        if (byId.remove(old.id(), old)) {
            count(old, -1);
        }
        return old.evict("the same client (run id " + session.runId() + ") logged in again as session "
                + session.id());
    }

    void unregister(ClientSession session) {
        if (byId.remove(session.id(), session)) {
            count(session, -1);
        }
        byRunId.remove(session.runId(), session);
        if (!session.rawClientId().isEmpty()) {
            clientIds.computeIfPresent(session.user() + "." + session.rawClientId(),
                    (key, holder) -> holder.sessionId().equals(session.id()) ? null : holder);
        }
    }

    /** Whether a client at {@code address} is logged in now. Any thread. */
    boolean hasClientAt(InetAddress address) {
        return addresses.containsKey(address);
    }

    private void count(ClientSession session, int delta) {
        if (session.mux().channel().remoteAddress() instanceof InetSocketAddress a) {
            addresses.compute(a.getAddress(), (k, n) -> {
                int left = (n == null ? 0 : n) + delta;
                return left <= 0 ? null : left;
            });
        }
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
