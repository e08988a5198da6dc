package dev.tunnel.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The proxy names taken on this server, as frp keeps them: one proxy per {@code user.name}
 * (just {@code name} for a client without a user) over every client session, so that two
 * clients of one user cannot both register {@code web}; the second is refused with frp's
 * {@code proxy [web] already exists}. A session claims a name when it starts a proxy and
 * releases it when the proxy closes or fails to start; a client that logs in again with the same
 * run id gets its names back once its old session has closed ({@link SessionRegistry}).
 *
 * <p>Also holds {@code maxProxiesPerClient}, the most proxies one session may hold or start.
 *
 * <p>Threading: sessions on every event loop claim and release; the map is concurrent, each call
 * one map operation.
 */
final class ProxyNames {
    /** Who holds a name: the session (compared by identity) and how logs name it. */
    private record Holder(Object session, String who) {
    }

    private final Map<String, Holder> taken = new ConcurrentHashMap<>();
    private final int maxPerClient;

    /** @param maxPerClient {@code maxProxiesPerClient}: proxies one session may hold; 0 = unlimited */
    ProxyNames(int maxPerClient) {
        this.maxPerClient = maxPerClient;
    }

    int maxPerClient() {
        return maxPerClient;
    }

    /**
     * Claims {@code name} for {@code session}; returns null when it got it, or how logs name the
     * session that holds it (which may be {@code session} itself).
     *
     * @param who how logs name {@code session}
     */
    String claim(String name, Object session, String who) {
        Holder holder = taken.putIfAbsent(name, new Holder(session, who));
        return holder == null ? null : holder.who();
    }

    /** Gives {@code name} back if {@code session} holds it. */
    void release(String name, Object session) {
        Holder holder = taken.get(name);
        if (holder != null && holder.session() == session) {
            taken.remove(name, holder);
        }
    }

    /** Names taken right now (tests). */
    int size() {
        return taken.size();
    }
}
