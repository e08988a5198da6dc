package dev.tunnel.server.vhost;

import java.util.List;
import java.util.Map;

/**
 * What a client asks for when it registers an {@code http} or {@code https} proxy, with frp's
 * key names. Fields that do not apply to the type are empty.
 *
 * @param locations path prefixes (http); empty = every path
 */
public record VhostSpec(boolean https, List<String> customDomains, String subdomain, List<String> locations,
                        String httpUser, String httpPassword, String hostHeaderRewrite,
                        Map<String, String> requestHeaders, Map<String, String> responseHeaders,
                        String routeByHTTPUser) {

    public VhostSpec {
        customDomains = List.copyOf(customDomains);
        locations = List.copyOf(locations);
        requestHeaders = Map.copyOf(requestHeaders);
        responseHeaders = Map.copyOf(responseHeaders);
    }

    /** An https proxy: only its domains matter. */
    public static VhostSpec https(List<String> customDomains, String subdomain) {
        return new VhostSpec(true, customDomains, subdomain, List.of(), "", "", "", Map.of(), Map.of(), "");
    }
}
