package dev.tunnel.server.vhost;

import java.util.Locale;

/**
 * Domain names as routing sees them: lower case, no port, no trailing dot. Checks what clients
 * may register: exact names ({@code app.example.com}), wildcards whose first label is {@code *}
 * ({@code *.example.com}), or {@code *} alone (every host no other proxy takes).
 */
public final class HostNames {
    /** Longest name accepted (RFC 1035: 253 characters in text form). */
    static final int MAX_LENGTH = 253;

    private HostNames() {
    }

    /**
     * The routing name in a {@code Host} header or an absolute URI's authority: lower case,
     * without the port, the trailing dot or IPv6 brackets. Null for an empty value.
     */
    public static String fromHostHeader(String host) {
        if (host == null) {
            return null;
        }
        String h = host.strip();
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            h = end < 0 ? h.substring(1) : h.substring(1, end);
        } else {
            int colon = h.lastIndexOf(':');
            if (colon >= 0 && h.indexOf(':') == colon) {
                h = h.substring(0, colon);
            }
        }
        if (h.endsWith(".")) {
            h = h.substring(0, h.length() - 1);
        }
        return h.isEmpty() ? null : h.toLowerCase(Locale.ROOT);
    }

    /**
     * Why {@code domain} cannot be registered, or null if it can. Allowed: letters, digits,
     * {@code -} and {@code _} in labels of 1-63 characters, at most 253 characters, and
     * {@code *} only as the whole first label.
     */
    public static String problem(String domain) {
        if (domain == null || domain.isEmpty()) {
            return "empty domain";
        }
        if (domain.length() > MAX_LENGTH) {
            return "domain longer than " + MAX_LENGTH + " characters";
        }
        if (domain.equals("*")) {
            return null;
        }
        String[] labels = domain.split("\\.", -1);
        for (int i = 0; i < labels.length; i++) {
            String label = labels[i];
            if (label.isEmpty() || label.length() > 63) {
                return "\"" + domain + "\" has an empty or over-long label (expected labels of 1-63 characters)";
            }
            if (label.equals("*")) {
                if (i != 0) {
                    return "\"" + domain + "\": * may only be the first label (as in *.example.com)";
                }
                continue;
            }
            for (int j = 0; j < label.length(); j++) {
                char c = label.charAt(j);
                boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
                        || c == '_';
                if (!ok) {
                    return "\"" + domain + "\" contains '" + c + "' (expected letters, digits, '-', '_', '.' and a"
                            + " leading '*.')";
                }
            }
        }
        return null;
    }

    /** The domain a proxy's {@code subdomain} names: {@code subdomain.subDomainHost}, lower case. */
    public static String subdomain(String subdomain, String subDomainHost) {
        return (subdomain + "." + subDomainHost).toLowerCase(Locale.ROOT);
    }
}
