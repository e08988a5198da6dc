package dev.tunnel.server;

import dev.tunnel.protocol.ControlMessage.NewProxy;
import dev.tunnel.protocol.Options;
import dev.tunnel.protocol.relay.Bandwidth;
import dev.tunnel.protocol.relay.TokenBucket;
import dev.tunnel.server.proxy.ProxyRef;
import dev.tunnel.server.proxy.RefusedVisitors;
import dev.tunnel.server.proxy.VisitorRules;
import dev.tunnel.server.web.ProxyLabels;
import java.util.List;

/**
 * The settings a proxy's registration carries that apply to every type, read from its options
 * before its type starts it: the {@code loadBalancer.group} type check, the server-side
 * bandwidth limit, the visitor rules ({@code allowIPs}, {@code denyIPs},
 * {@code maxNewConnsPerIPPerMinute}) and what the API shows of it. The server checks them again
 * whatever the client's verify said: it does not trust the client.
 *
 * <p>Stateless.
 */
final class ProxySettings {
    /** The proxy types whose public side a {@code loadBalancer.group} balances, as in frp. */
    static final List<String> GROUP_TYPES = List.of("tcp", "http", "https", "tcpmux");

    private ProxySettings() {
    }

    /** Applies {@code request}'s settings to {@code proxy}; returns why they are wrong, or null. */
    static String apply(ProxyRef proxy, NewProxy request, RefusedVisitors refused) {
        Options options = request.options();
        if (options.has("loadBalancer.group") && !GROUP_TYPES.contains(request.type())) {
            return "loadBalancer.group: groups are for proxy types " + String.join(", ", GROUP_TYPES)
                    + " (this proxy is " + request.type() + ")";
        }
        String badLimit = limitBandwidth(proxy, options);
        if (badLimit != null) {
            return badLimit;
        }
        try {
            proxy.visitorRules(VisitorRules.from(proxy.name(), options, refused, System::nanoTime));
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /**
     * {@code transport.bandwidthLimit} with {@code transport.bandwidthLimitMode = "server"}: the
     * proxy's public connections read through one bucket. The client sends both keys only in
     * server mode (in client mode it paces its own reads). Returns why the options are wrong, or
     * null.
     */
    private static String limitBandwidth(ProxyRef proxy, Options options) {
        String mode = options.string("transport.bandwidthLimitMode", Bandwidth.MODE_CLIENT);
        if (!mode.equals(Bandwidth.MODE_SERVER)) {
            return mode.equals(Bandwidth.MODE_CLIENT) ? null
                    : "transport.bandwidthLimitMode: \"" + mode + "\" (expected: \"client\" or \"server\")";
        }
        try {
            long limit = Bandwidth.parse(options.string("transport.bandwidthLimit", ""));
            if (limit > 0) {
                proxy.bandwidth(new TokenBucket(limit));
            }
            return null;
        } catch (IllegalArgumentException e) {
            return "transport.bandwidthLimit: " + e.getMessage();
        }
    }

    /** What the API shows of a proxy's {@code metadatas.*}, {@code annotations.*}, group and domains. */
    static ProxyLabels labels(Options options) {
        return new ProxyLabels(options.map("metadatas"), options.map("annotations"),
                options.string("loadBalancer.group", ""), options.list("customDomains"),
                options.string("subdomain", ""), options.list("locations"));
    }
}
