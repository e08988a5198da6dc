package dev.tunnel.server.web;

import java.util.List;
import java.util.Map;

/**
 * What a proxy's client said about it besides its type: frp's {@code metadatas.*},
 * {@code annotations.*}, {@code loadBalancer.group} ("" = none) and, for the vhost types,
 * {@code customDomains}, {@code subdomain} and {@code locations}; shown by the API as sent.
 */
public record ProxyLabels(Map<String, String> metadatas, Map<String, String> annotations, String group,
                          List<String> customDomains, String subdomain, List<String> locations) {
    public static final ProxyLabels NONE = new ProxyLabels(Map.of(), Map.of(), "");

    public ProxyLabels {
        metadatas = Map.copyOf(metadatas);
        annotations = Map.copyOf(annotations);
        customDomains = List.copyOf(customDomains);
        locations = List.copyOf(locations);
    }

    public ProxyLabels(Map<String, String> metadatas, Map<String, String> annotations, String group) {
        this(metadatas, annotations, group, List.of(), "", List.of());
    }
}
