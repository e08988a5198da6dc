package dev.tunnel.web;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The route table of one web server: method, path template ({@code /api/proxy/{type}/{name}},
 * a {@code {name}} matches one URL-decoded segment) and how the route is guarded. Built once,
 * read-only afterwards, so it is shared by every connection.
 */
public final class Routes {

    /** One route. */
    record Route(HttpMethod method, String[] segments, Endpoint endpoint, boolean open, boolean changesState) {
    }

    /** The outcome of a lookup: a route with its parameters, or the methods the path allows (empty: no such path). */
    record Match(Route route, Map<String, String> params, Set<HttpMethod> allowed) {
    }

    private final List<Route> routes = new ArrayList<>();

    /** A read-only route behind auth. */
    public Routes get(String template, Endpoint endpoint) {
        return add(HttpMethod.GET, template, endpoint, false, false);
    }

    /** A read-only route without auth (frp's {@code /healthz}). */
    public Routes open(String template, Endpoint endpoint) {
        return add(HttpMethod.GET, template, endpoint, true, false);
    }

    /**
     * A route that changes state: behind auth, refused to cross-site requests
     * ({@link CrossSiteGuard}), and run off the event loop (it may wait, e.g. for a reload).
     */
    public Routes change(HttpMethod method, String template, Endpoint endpoint) {
        return add(method, template, endpoint, false, true);
    }

    private Routes add(HttpMethod method, String template, Endpoint endpoint, boolean open, boolean changesState) {
        routes.add(new Route(method, split(template), endpoint, open, changesState));
        return this;
    }

    Match match(HttpMethod method, String rawPath) {
        String[] path = split(rawPath);
        Set<HttpMethod> allowed = new LinkedHashSet<>();
        for (Route route : routes) {
            Map<String, String> params = bind(route.segments(), path);
            if (params == null) {
                continue;
            }
            if (route.method().equals(method)) {
                return new Match(route, params, Set.of());
            }
            allowed.add(route.method());
        }
        return new Match(null, Map.of(), allowed);
    }

    /** Whether any route on {@code rawPath} is open (reachable without credentials). */
    boolean isOpen(String rawPath) {
        String[] path = split(rawPath);
        return routes.stream().anyMatch(r -> r.open() && bind(r.segments(), path) != null);
    }

    private static Map<String, String> bind(String[] template, String[] path) {
        if (template.length != path.length) {
            return null;
        }
        Map<String, String> params = new HashMap<>();
        for (int i = 0; i < template.length; i++) {
            String t = template[i];
            if (t.length() > 2 && t.startsWith("{") && t.endsWith("}")) {
                if (path[i].isEmpty()) {
                    return null;
                }
                try {
                    params.put(t.substring(1, t.length() - 1), QueryStringDecoder.decodeComponent(path[i]));
                } catch (IllegalArgumentException malformed) {
                    return null; // "%zz" names nothing
                }
            } else if (!t.equals(path[i])) {
                return null;
            }
        }
        return params;
    }

    private static String[] split(String path) {
        return (path.startsWith("/") ? path.substring(1) : path).split("/", -1);
    }
}
