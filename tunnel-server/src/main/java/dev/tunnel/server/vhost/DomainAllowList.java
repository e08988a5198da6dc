package dev.tunnel.server.vhost;

import java.util.List;
import java.util.Locale;

/**
 * The domains one user's clients may register ({@code [[users]] allowDomains}). An entry is an
 * exact name, or {@code *.example.com}, which allows every name below example.com (at any depth)
 * and the wildcard {@code *.example.com} itself; {@code *} allows everything. An empty list
 * allows everything, as frp does.
 */
public final class DomainAllowList {
    private static final DomainAllowList ANY = new DomainAllowList(List.of());

    private final List<String> patterns;

    private DomainAllowList(List<String> patterns) {
        this.patterns = patterns;
    }

    public static DomainAllowList of(List<String> patterns) {
        return patterns == null || patterns.isEmpty() ? ANY
                : new DomainAllowList(patterns.stream().map(p -> p.toLowerCase(Locale.ROOT)).toList());
    }

    public static DomainAllowList any() {
        return ANY;
    }

    /** Whether {@code domain} (a name or a wildcard a client asks for, lower case) may be registered. */
    public boolean allows(String domain) {
        if (patterns.isEmpty()) {
            return true;
        }
        String d = domain.toLowerCase(Locale.ROOT);
        for (String p : patterns) {
            if (p.equals("*") || p.equals(d)) {
                return true;
            }
            if (p.startsWith("*.")) {
                String suffix = p.substring(1); // ".example.com"
                String candidate = d.startsWith("*.") ? d.substring(1) : d;
                if (candidate.endsWith(suffix) && candidate.length() > suffix.length()) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return patterns.isEmpty() ? "any domain" : String.join(", ", patterns);
    }
}
