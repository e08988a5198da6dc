package dev.tunnel.server.vhost;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The server's virtual hosts: which {@code http} and {@code https} proxies serve which domains
 * (and locations), shared by every client session and read by the vhost ports. Registration
 * checks what frp checks (a domain is needed; {@code subdomain} needs {@code subDomainHost} and
 * no dots; a custom domain may not sit under {@code subDomainHost}) and what frp does not: the
 * user's {@code allowDomains}, and that a taken route is refused with the owner's name while
 * the owner keeps it.
 *
 * <p>Threading: any thread ({@link RouteTable} is safe to share).
 */
public final class Vhosts {
    private final RouteTable<HttpRoute> http = new RouteTable<>();
    private final RouteTable<VhostTarget> https = new RouteTable<>();
    private final int httpPort;
    private final int httpsPort;
    private final String subDomainHost;

    /** @param httpPort {@code vhostHTTPPort} (0 = off), likewise httpsPort; subDomainHost "" = off */
    public Vhosts(int httpPort, int httpsPort, String subDomainHost) {
        this.httpPort = httpPort;
        this.httpsPort = httpsPort;
        this.subDomainHost = subDomainHost == null ? "" : subDomainHost.toLowerCase(Locale.ROOT);
    }

    public RouteTable<HttpRoute> httpRoutes() {
        return http;
    }

    public RouteTable<VhostTarget> httpsRoutes() {
        return https;
    }

    /** Refusal of a registration; the message says why, naming the key or the owner. */
    public static final class Refused extends Exception {
        public Refused(String message) {
            super(message, null, false, false);
        }
    }

    /** A registered proxy's routes; {@link #close()} removes them. */
    public final class Registration implements AutoCloseable {
        private final List<Runnable> removals;
        private final List<String> domains;

        private Registration(List<Runnable> removals, List<String> domains) {
            this.removals = removals;
            this.domains = domains;
        }

        /** The domains served, for the log line. */
        public List<String> domains() {
            return domains;
        }

        /** The public port the proxy is reached on. */
        public int port(boolean httpsType) {
            return httpsType ? httpsPort : httpPort;
        }

        @Override
        public void close() {
            removals.forEach(Runnable::run);
            removals.clear();
        }
    }

    /**
     * Registers {@code target} for what {@code spec} asks.
     *
     * @param user    the client's user, for messages ("" = the shared token)
     * @param allowed the domains the user may take
     * @throws Refused naming the key, the domain, or the proxy that already holds it
     */
    public Registration register(VhostTarget target, VhostSpec spec, String user, DomainAllowList allowed)
            throws Refused {
        return register(target, spec, user, allowed, null);
    }

    /**
     * Registers {@code target} for what {@code spec} asks, as a member of {@code group} (null = in
     * none): every route it asks for is shared with the group's other proxies on that route.
     *
     * @throws Refused naming the key, the domain, the proxy or group that holds it, or a wrong groupKey
     */
    public Registration register(VhostTarget target, VhostSpec spec, String user, DomainAllowList allowed,
                                 RouteTable.Group group) throws Refused {
        String type = spec.https() ? "https" : "http";
        if ((spec.https() ? httpsPort : httpPort) == 0) {
            throw new Refused("the server serves no " + type + " proxies (its " + (spec.https() ? "vhostHTTPSPort"
                    : "vhostHTTPPort") + " is not set)");
        }
        List<String> domains = domains(spec, user, allowed);
        List<Runnable> removals = new ArrayList<>();
        if (spec.https()) {
            for (String d : domains) {
                String problem = https.join(d, "", "", target.name(), target, group);
                if (problem != null) {
                    removals.forEach(Runnable::run);
                    throw new Refused("domain [" + d + "] " + problem);
                }
                removals.add(() -> https.remove(d, "", "", target));
            }
            return new Registration(removals, domains);
        }
        HttpRoute route = new HttpRoute(target, spec.httpUser(), spec.httpPassword(), spec.hostHeaderRewrite(),
                spec.requestHeaders(), spec.responseHeaders());
        List<String> locations = spec.locations().isEmpty() ? List.of("") : spec.locations();
        for (int i = 0; i < locations.size(); i++) {
            String problem = RequestPath.locationProblem(locations.get(i));
            if (problem != null) {
                throw new Refused("locations[" + i + "] " + problem);
            }
        }
        for (String d : domains) {
            for (String location : locations) {
                String problem = http.join(d, location, spec.routeByHTTPUser(), target.name(), route, group);
                if (problem != null) {
                    removals.forEach(Runnable::run);
                    throw new Refused("domain [" + d + "]" + (location.isEmpty() ? "" : " location [" + location + "]")
                            + (spec.routeByHTTPUser().isEmpty() ? "" : " routeByHTTPUser [" + spec.routeByHTTPUser() + "]")
                            + " " + problem);
                }
                removals.add(() -> http.remove(d, location, spec.routeByHTTPUser(), route));
            }
        }
        removals.add(target.idle()::close); // ends what is parked, and what is parked later
        return new Registration(removals, domains);
    }

    private List<String> domains(VhostSpec spec, String user, DomainAllowList allowed) throws Refused {
        Set<String> domains = new LinkedHashSet<>();
        for (String d : spec.customDomains()) {
            String domain = d.toLowerCase(Locale.ROOT);
            String problem = HostNames.problem(domain);
            if (problem != null) {
                throw new Refused("customDomains: " + problem);
            }
            if (!subDomainHost.isEmpty() && domain.endsWith("." + subDomainHost)) {
                throw new Refused("custom domain [" + domain + "] should not belong to subdomain host [" + subDomainHost
                        + "] (use subdomain instead)");
            }
            domains.add(domain);
        }
        if (!spec.subdomain().isEmpty()) {
            if (subDomainHost.isEmpty()) {
                throw new Refused("subdomain is set but the server has no subDomainHost");
            }
            if (spec.subdomain().contains(".") || spec.subdomain().contains("*")) {
                throw new Refused("subdomain \"" + spec.subdomain() + "\": '.' and '*' are not supported in subdomain");
            }
            String domain = HostNames.subdomain(spec.subdomain(), subDomainHost);
            String problem = HostNames.problem(domain);
            if (problem != null) {
                throw new Refused("subdomain: " + problem);
            }
            domains.add(domain);
        }
        if (domains.isEmpty()) {
            throw new Refused("customDomains or subdomain is required for a " + (spec.https() ? "https" : "http")
                    + " proxy");
        }
        for (String d : domains) {
            if (!allowed.allows(d)) {
                throw new Refused("domain [" + d + "] is not allowed for " + (user.isEmpty() ? "the shared token"
                        : "user [" + user + "]") + " (allowDomains: " + allowed + ")");
            }
        }
        return List.copyOf(domains);
    }
}
