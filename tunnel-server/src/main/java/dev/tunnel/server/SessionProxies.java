package dev.tunnel.server;

import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.RunningProxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The proxies of one client session, by the id its client gave each: those being started
 * (asking plugins, binding) and those running. A proxy's name is claimed in the server-wide
 * {@link ProxyNames} from the moment it is admitted until it closes or fails to start, and
 * admission is refused past {@code maxProxiesPerClient}. Every operation is a constant number of
 * map operations, whatever the number of proxies.
 *
 * <p>Threading: written on the session's event loop only; {@link #running()} may be read from
 * any thread (status pages), so that map is concurrent.
 */
final class SessionProxies {
    /** A running proxy: the name its client gave it, its type, its reference and what runs it. */
    record Running(String name, String type, ProxyRef ref, RunningProxy proxy) {
    }

    /**
     * Why a proxy is not admitted.
     *
     * @param reason what its client is told and the log says
     * @param detail what only the log adds ("" for nothing)
     */
    record Refusal(String reason, String detail) {
    }

    private record Starting(String type, String name) {
    }

    private final ProxyNames names;
    private final Object session;
    private final String who;
    private final Map<Integer, Running> running = new ConcurrentHashMap<>();
    private final Map<Integer, Starting> starting = new HashMap<>();

    /**
     * @param session the session the names are claimed for (compared by identity)
     * @param who     how logs name the session when another one asks for a name it holds
     */
    SessionProxies(ProxyNames names, Object session, String who) {
        this.names = names;
        this.session = session;
        this.who = who;
    }

    /**
     * Admits proxy {@code id} named {@code name} (as frp names it, {@code user.name}) to start:
     * claims its name and counts it; or returns why not.
     */
    Refusal admit(int id, String name, String type) {
        if (running.containsKey(id) || starting.containsKey(id)) {
            return new Refusal("proxy [" + name + "] is already registered", "");
        }
        int max = names.maxPerClient();
        if (max > 0 && running.size() + starting.size() >= max) {
            return new Refusal("proxy [" + name + "] refused: this client already has " + max
                    + " proxies, the most the server allows (maxProxiesPerClient = " + max + ")", "");
        }
        String holder = names.claim(name, session, who);
        if (holder != null) {
            return new Refusal("proxy [" + name + "] already exists", " (held by " + holder + ")");
        }
        starting.put(id, new Starting(type, name));
        return null;
    }

    /** Proxy {@code id} did not start (refused, failed, or the session closed meanwhile): its name is free. */
    void abandon(int id) {
        Starting s = starting.remove(id);
        if (s != null) {
            names.release(s.name(), session);
        }
    }

    /** Proxy {@code id}, admitted, runs now. */
    void started(int id, Running proxy) {
        starting.remove(id);
        running.put(id, proxy);
    }

    /** Takes running proxy {@code id} out and frees its name; null if it is not running. */
    Running remove(int id) {
        Running proxy = running.remove(id);
        if (proxy != null) {
            names.release(proxy.ref().name(), session);
        }
        return proxy;
    }

    /** The type of a running or starting proxy, or null. */
    String typeOf(int id) {
        Running proxy = running.get(id);
        if (proxy != null) {
            return proxy.type();
        }
        Starting s = starting.get(id);
        return s == null ? null : s.type();
    }

    /** Frees the names of the proxies still starting (the session is closing; they will not run). */
    void abandonStarting() {
        starting.values().forEach(s -> names.release(s.name(), session));
        starting.clear();
    }

    /** The ids of the running proxies, at this moment. */
    List<Integer> runningIds() {
        return new ArrayList<>(running.keySet());
    }

    /** The running proxies; any thread. */
    Collection<Running> running() {
        return running.values();
    }
}
