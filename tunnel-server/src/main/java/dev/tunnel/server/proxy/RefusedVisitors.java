package dev.tunnel.server.proxy;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server's count of public connections (and datagram peers, and stcp/sudp visitors) its
 * proxies' {@link VisitorRules} refused, by proxy name and {@link VisitorRules.Reason}: what
 * {@code /metrics} shows as {@code tunnel_server_proxy_refused_visitors_total{proxy,reason}}.
 * Counts outlive a proxy's run (a counter must not go back). At most {@value #MAX_PROXIES}
 * proxy names are kept; refusals of further proxies are counted under {@value #OTHER}.
 *
 * <p>Thread-safe: every session loop counts here.
 */
public final class RefusedVisitors {
    static final int MAX_PROXIES = 4096;
    static final String OTHER = "(other)";

    private final Map<String, LongAdder[]> byProxy = new ConcurrentHashMap<>();

    /** Counts one refusal of {@code reason} by proxy {@code name} (qualified). */
    public void count(String name, VisitorRules.Reason reason) {
        String key = byProxy.size() >= MAX_PROXIES && !byProxy.containsKey(name) ? OTHER : name;
        byProxy.computeIfAbsent(key, k -> newCounters())[reason.ordinal()].increment();
    }

    /** The counts so far by proxy name, each indexed by {@link VisitorRules.Reason#ordinal()}; sorted by name. */
    public Map<String, long[]> snapshot() {
        Map<String, long[]> out = new TreeMap<>();
        byProxy.forEach((name, counters) -> {
            long[] n = new long[counters.length];
            for (int i = 0; i < n.length; i++) {
                n[i] = counters[i].sum();
            }
            out.put(name, n);
        });
        return out;
    }

    private static LongAdder[] newCounters() {
        LongAdder[] counters = new LongAdder[VisitorRules.Reason.values().length];
        for (int i = 0; i < counters.length; i++) {
            counters[i] = new LongAdder();
        }
        return counters;
    }
}
