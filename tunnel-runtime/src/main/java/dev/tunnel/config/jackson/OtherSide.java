package dev.tunnel.config.jackson;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * Recognizes a server config given to the client and the reverse, by keys only the other side
 * has at the top level, so the answer is "this looks like a server config" rather than a
 * suggestion for each of its keys ("did you mean visitors[].bindPort").
 */
final class OtherSide {
    private static final List<String> SERVER_KEYS = List.of("bindPort", "vhostHTTPPort", "vhostHTTPSPort",
            "allowPorts", "subDomainHost");
    private static final List<String> CLIENT_KEYS = List.of("serverAddr", "proxies", "visitors");

    private OtherSide() {
    }

    /**
     * The key that gives it away and the message, or null when {@code root} may be for
     * {@code known} (the properties of a client config, a server config, or neither, as an
     * included file's, which is left alone).
     */
    static Map.Entry<String, String> of(JsonNode root, Map<String, ?> known) {
        boolean client = known.containsKey("serverAddr");
        boolean server = known.containsKey("bindPort");
        for (String key : SERVER_KEYS) {
            if (client && root.has(key) && !known.containsKey(key)) {
                return Map.entry(key, "this looks like a server config (it sets " + key + "): run it with tunnel-server;"
                        + " a client config sets serverAddr, serverPort and [[proxies]]");
            }
        }
        for (String key : CLIENT_KEYS) {
            if (server && root.has(key) && !known.containsKey(key)) {
                return Map.entry(key, "this looks like a client config (it sets " + key + "): run it with tunnel-client;"
                        + " a server config sets bindPort");
            }
        }
        return null;
    }
}
