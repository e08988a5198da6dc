package dev.tunnel.server.vhost;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which route serves a host, a path and an HTTP user, with frp's order: the exact host, then
 * wildcards from the most specific ({@code a.b.example.com} tries {@code *.b.example.com}, then
 * {@code *.example.com}; a two-label host never matches {@code *.com}), then {@code *}. Within
 * one domain, routes for the request's HTTP user ({@code routeByHTTPUser}) come before routes for
 * any user, and among those the longest {@code location} that prefixes the path wins.
 *
 * <p>A route is registered under (domain, location, httpUser); a second registration of the same
 * triple is refused with the name of the route that holds it, which keeps it. Proxies of one
 * load-balancing group ({@code loadBalancer.group}, with the group's {@code groupKey}) share the
 * triple instead: each {@link #find} hands out the next of them in turn (frp's round robin per
 * request or connection), and the route stays while any of them does.
 *
 * <p>Threading: lookups run on every event loop without locking (each domain's routes are an
 * immutable list replaced as a whole; the round-robin counter is atomic); registrations are
 * synchronized.
 *
 * @param <T> what a route leads to
 */
public final class RouteTable<T> {
    private final Map<String, List<Slot<T>>> byDomain = new ConcurrentHashMap<>();

    /** One registered route. {@code owner} names it in conflicts and logs (the proxy's name). */
    public record Entry<T>(String domain, String location, String httpUser, String owner, T target) {
    }

    /** A load-balancing group as its proxies name it: {@code loadBalancer.group} and {@code groupKey}. */
    public record Group(String name, String key) {
        /** The group a proxy names, or null for {@code loadBalancer.group = ""} (none). */
        public static Group of(String name, String key) {
            return name.isEmpty() ? null : new Group(name, key);
        }

        @Override
        public String toString() {
            return name; // never the key
        }
    }

    /** The proxies on one (domain, location, httpUser): one, or the members of {@code group}. */
    private record Slot<T>(String location, String httpUser, Group group, List<Entry<T>> members, AtomicLong next) {
        Slot<T> with(List<Entry<T>> others) {
            return new Slot<>(location, httpUser, group, List.copyOf(others), next);
        }

        Entry<T> pick() {
            return members.size() == 1 ? members.get(0)
                    : members.get((int) Math.floorMod(next.getAndIncrement(), (long) members.size()));
        }
    }

    /**
     * Registers a route outside any group; domain is lower-cased, location "" matches every path.
     *
     * @return null on success, else the entry that already holds this domain, location and user
     */
    public synchronized Entry<T> add(String domain, String location, String httpUser, String owner, T target) {
        String d = domain.toLowerCase(java.util.Locale.ROOT);
        Slot<T> taken = slot(d, location, httpUser);
        if (taken != null) {
            return taken.members.get(0);
        }
        put(d, new Slot<>(location, httpUser, null, List.of(new Entry<>(d, location, httpUser, owner, target)),
                new AtomicLong()));
        return null;
    }

    /**
     * Registers a route as a member of {@code group} (null = alone, as {@link #add}): the first
     * member creates it, the next ones join it with the same group name and key.
     *
     * @return null on success, else why not: taken by a proxy outside the group or by another
     *     group (naming it), or the key differs
     */
    public synchronized String join(String domain, String location, String httpUser, String owner, T target,
                                    Group group) {
        String d = domain.toLowerCase(java.util.Locale.ROOT);
        Entry<T> entry = new Entry<>(d, location, httpUser, owner, target);
        Slot<T> taken = slot(d, location, httpUser);
        if (taken == null) {
            put(d, new Slot<>(location, httpUser, group, List.of(entry), new AtomicLong()));
            return null;
        }
        if (taken.group == null) {
            return "is already used by proxy [" + taken.members.get(0).owner() + "]"
                    + (group == null ? "" : ", which is in no group");
        }
        if (group == null || !taken.group.name().equals(group.name())) {
            return "is already used by group [" + taken.group.name() + "] (proxies " + owners(taken) + ")";
        }
        if (!MessageDigest.isEqual(bytes(taken.group.key()), bytes(group.key()))) {
            return "is served by group [" + group.name() + "], whose loadBalancer.groupKey differs from this"
                    + " proxy's (every proxy of a group must have the same groupKey)";
        }
        List<Entry<T>> members = new ArrayList<>(taken.members);
        members.add(entry);
        replace(d, taken, taken.with(members));
        return null;
    }

    /** Removes {@code target} from the route of (domain, location, httpUser); the route goes with its last member. */
    public synchronized void remove(String domain, String location, String httpUser, T target) {
        String d = domain.toLowerCase(java.util.Locale.ROOT);
        Slot<T> slot = slot(d, location, httpUser);
        if (slot == null) {
            return;
        }
        List<Entry<T>> members = slot.members.stream().filter(e -> e.target != target).toList();
        if (members.size() != slot.members.size()) {
            replace(d, slot, members.isEmpty() ? null : slot.with(members));
        }
    }

    /**
     * The route for a request, or null. For a group, the next member in turn: call once per
     * request or connection to balance.
     *
     * @param host     routing name ({@link HostNames#fromHostHeader})
     * @param path     the request path (compared case-insensitively, as frp does)
     * @param httpUser the Basic auth user of the request, "" for none
     */
    public Entry<T> find(String host, String path, String httpUser) {
        String p = path.toLowerCase(java.util.Locale.ROOT);
        Slot<T> e = inDomain(host, p, httpUser);
        if (e != null) {
            return e.pick();
        }
        String rest = host;
        int labels = countLabels(host);
        while (labels >= 3) {
            rest = rest.substring(rest.indexOf('.') + 1);
            labels--;
            e = inDomain("*." + rest, p, httpUser);
            if (e != null) {
                return e.pick();
            }
        }
        e = inDomain("*", p, httpUser);
        return e == null ? null : e.pick();
    }

    /** Whether any route is registered (for tests and status). */
    public boolean isEmpty() {
        return byDomain.isEmpty();
    }

    private Slot<T> slot(String domain, String location, String httpUser) {
        for (Slot<T> s : byDomain.getOrDefault(domain, List.of())) {
            if (s.location.equals(location) && s.httpUser.equals(httpUser)) {
                return s;
            }
        }
        return null;
    }

    private void put(String domain, Slot<T> slot) {
        List<Slot<T>> next = new ArrayList<>(byDomain.getOrDefault(domain, List.of()));
        next.add(slot);
        next.sort(Comparator.comparingInt((Slot<T> s) -> s.location.length()).reversed());
        byDomain.put(domain, List.copyOf(next));
    }

    /** Puts {@code replacement} where {@code old} was, or drops {@code old} when it is null. */
    private void replace(String domain, Slot<T> old, Slot<T> replacement) {
        List<Slot<T>> next = new ArrayList<>(byDomain.get(domain));
        int i = next.indexOf(old);
        if (replacement == null) {
            next.remove(i);
        } else {
            next.set(i, replacement);
        }
        if (next.isEmpty()) {
            byDomain.remove(domain);
        } else {
            byDomain.put(domain, List.copyOf(next));
        }
    }

    private static String owners(Slot<?> slot) {
        return slot.members.stream().map(e -> "[" + e.owner() + "]").collect(java.util.stream.Collectors.joining(", "));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Slot<T> inDomain(String domain, String path, String httpUser) {
        List<Slot<T>> routes = byDomain.get(domain);
        if (routes == null) {
            return null;
        }
        if (!httpUser.isEmpty()) {
            for (Slot<T> e : routes) {
                if (e.httpUser.equals(httpUser) && path.startsWith(e.location.toLowerCase(java.util.Locale.ROOT))) {
                    return e;
                }
            }
        }
        for (Slot<T> e : routes) {
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
