package dev.tunnel.server.vhost;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which route serves a host, a path and an HTTP user, with frp's order: the exact host, then
 * wildcards from the most specific ({@code a.b.example.com} tries {@code *.b.example.com}, then
 * {@code *.example.com}; a two-label host never matches {@code *.com}), then {@code *}. Within
 * one domain, routes for the request's HTTP user ({@code routeByHTTPUser}) come before routes for
 * any user, and among those the longest {@code location} that prefixes the path wins.
 *
 * <p>A route is registered under (domain, location, httpUser); a second registration of the same
 * triple is refused with the name of the route that holds it, which keeps it.
 *
 * <p>Threading: lookups run on every event loop without locking (each domain's routes are an
 * immutable list replaced as a whole); registrations are synchronized.
 *
 * @param <T> what a route leads to
 */
public final class RouteTable<T> {
    private final Map<String, List<Entry<T>>> byDomain = new ConcurrentHashMap<>();

    /** One registered route. {@code owner} names it in conflicts and logs (the proxy's name). */
    public record Entry<T>(String domain, String location, String httpUser, String owner, T target) {
    }

    /**
     * Registers a route; domain is lower-cased, location "" matches every path.
     *
     * @return null on success, else the entry that already holds this domain, location and user
     */
    public synchronized Entry<T> add(String domain, String location, String httpUser, String owner, T target) {
        String d = domain.toLowerCase(java.util.Locale.ROOT);
        List<Entry<T>> current = byDomain.getOrDefault(d, List.of());
        for (Entry<T> e : current) {
            if (e.location.equals(location) && e.httpUser.equals(httpUser)) {
                return e;
            }
        }
        List<Entry<T>> next = new ArrayList<>(current);
        next.add(new Entry<>(d, location, httpUser, owner, target));
        next.sort(Comparator.comparingInt((Entry<T> e) -> e.location.length()).reversed());
        byDomain.put(d, List.copyOf(next));
        return null;
    }

    /** Removes the route of (domain, location, httpUser) if {@code target} holds it. */
    public synchronized void remove(String domain, String location, String httpUser, T target) {
        String d = domain.toLowerCase(java.util.Locale.ROOT);
        List<Entry<T>> current = byDomain.get(d);
        if (current == null) {
            return;
        }
        List<Entry<T>> next = current.stream()
                .filter(e -> !(e.location.equals(location) && e.httpUser.equals(httpUser) && e.target == target))
                .toList();
        if (next.isEmpty()) {
            byDomain.remove(d);
        } else {
            byDomain.put(d, next);
        }
    }

    /**
     * The route for a request, or null.
     *
     * @param host     routing name ({@link HostNames#fromHostHeader})
     * @param path     the request path (compared case-insensitively, as frp does)
     * @param httpUser the Basic auth user of the request, "" for none
     */
    public Entry<T> find(String host, String path, String httpUser) {
        String p = path.toLowerCase(java.util.Locale.ROOT);
        Entry<T> e = inDomain(host, p, httpUser);
        if (e != null) {
            return e;
        }
        String rest = host;
        int labels = countLabels(host);
        while (labels >= 3) {
            rest = rest.substring(rest.indexOf('.') + 1);
            labels--;
            e = inDomain("*." + rest, p, httpUser);
            if (e != null) {
                return e;
            }
        }
        return inDomain("*", p, httpUser);
    }

    /** Whether any route is registered (for tests and status). */
    public boolean isEmpty() {
        return byDomain.isEmpty();
    }

    private Entry<T> inDomain(String domain, String path, String httpUser) {
        List<Entry<T>> routes = byDomain.get(domain);
        if (routes == null) {
            return null;
        }
        if (!httpUser.isEmpty()) {
            for (Entry<T> e : routes) {
                if (e.httpUser.equals(httpUser) && path.startsWith(e.location.toLowerCase(java.util.Locale.ROOT))) {
                    return e;
                }
            }
        }
        for (Entry<T> e : routes) {
            if (e.httpUser.isEmpty() && path.startsWith(e.location.toLowerCase(java.util.Locale.ROOT))) {
                return e;
            }
        }
        return null;
    }

    private static int countLabels(String host) {
        int n = 1;
        for (int i = 0; i < host.length(); i++) {
            if (host.charAt(i) == '.') {
                n++;
            }
        }
        return n;
    }
}
