package dev.tunnel.server.proxy;

import dev.tunnel.config.AddressRange;
import dev.tunnel.protocol.Options;
import dev.tunnel.runtime.BurstLog;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may reach one proxy: its {@code allowIPs}, {@code denyIPs} and
 * {@code maxNewConnsPerIPPerMinute} (keys of the client's {@code [[proxies]]} entry, sent in
 * {@code NEW_PROXY}). The server asks {@link #admits} before it carries a public connection, so a
 * refused visitor costs the client nothing: no stream, no work connection, no byte. A refusal is
 * counted in {@link RefusedVisitors} and logged once per burst per proxy.
 *
 * <p>Order: an address in {@code denyIPs} is refused; else, when {@code allowIPs} is set, an
 * address outside it is refused; else the rate limit counts the connection (refused ones do not
 * count).
 *
 * <p>Thread-safe: the lists are immutable and {@link NewConnRate} is synchronized.
 */
public final class VisitorRules {
    private static final Logger log = LoggerFactory.getLogger(VisitorRules.class);

    /** Why a visitor was refused; the label is the metric's {@code reason}. */
    public enum Reason {
        DENIED("denied_ip", "its address is in denyIPs"),
        NOT_ALLOWED("not_allowed_ip", "its address is not in allowIPs"),
        RATE_LIMITED("rate_limited", "its address opened maxNewConnsPerIPPerMinute connections this minute");

        private final String label;
        private final String why;

        Reason(String label, String why) {
            this.label = label;
            this.why = why;
        }

        public String label() {
            return label;
        }
    }

    /** No rules: everyone is admitted. */
    public static final VisitorRules NONE = new VisitorRules("", List.of(), List.of(), null, null);

    private final String proxy;
    private final List<AddressRange> allow;
    private final List<AddressRange> deny;
    private final NewConnRate rate;
    private final RefusedVisitors refused;
    private final BurstLog refusals = new BurstLog(log);

    private VisitorRules(String proxy, List<AddressRange> allow, List<AddressRange> deny, NewConnRate rate,
                         RefusedVisitors refused) {
        this.proxy = proxy;
        this.allow = allow;
        this.deny = deny;
        this.rate = rate;
        this.refused = refused;
    }

    /**
     * The rules {@code options} carry for proxy {@code name}; {@link #NONE} when it sets none.
     *
     * @throws IllegalArgumentException naming the key and the bad value (the client validates
     *                                  them too, but the server trusts no peer)
     */
    public static VisitorRules from(String name, Options options, RefusedVisitors refused, LongSupplier nanoClock) {
        List<AddressRange> allow = ranges(options, "allowIPs");
        List<AddressRange> deny = ranges(options, "denyIPs");
        int perMinute = options.integer("maxNewConnsPerIPPerMinute", 0);
        if (perMinute < 0) {
            throw new IllegalArgumentException("maxNewConnsPerIPPerMinute: " + perMinute + " (expected: 0 for no limit,"
                    + " or 1 or more)");
        }
        if (allow.isEmpty() && deny.isEmpty() && perMinute == 0) {
            return NONE;
        }
        return new VisitorRules(name, allow, deny, perMinute == 0 ? null : new NewConnRate(perMinute, nanoClock),
                refused);
    }

    private static List<AddressRange> ranges(Options options, String key) {
        List<String> entries = options.list(key);
        List<AddressRange> out = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            try {
                out.add(AddressRange.parse(entries.get(i)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(key + "[" + i + "]: " + e.getMessage());
            }
        }
        return List.copyOf(out);
    }

    /** Whether any rule is set (a proxy without rules is never asked). */
    public boolean isEmpty() {
        return this == NONE;
    }

    /**
     * Whether a visitor from {@code peer} may reach the proxy now; a refusal is counted and logged
     * (once per burst). A peer without an IP address (a Unix socket, a test's local channel) is
     * admitted. Counts toward the rate limit when admitted.
     *
     * @param what what the visitor opened, for the log line ("public connection", "datagrams", "visitor")
     */
    public boolean admits(SocketAddress peer, String what) {
        if (this == NONE || !(peer instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return true;
        }
        Reason reason = check(inet.getAddress());
        if (reason == null) {
            return true;
        }
        refused.count(proxy, reason);
        refusals.warn("proxy [{}] refused {} from {}: {}", proxy, what, peer, reason.why);
        return false;
    }

    /** The reason {@code address} is refused, or null when it is admitted (and counted toward the rate). */
    Reason check(InetAddress address) {
        for (AddressRange r : deny) {
            if (r.matches(address)) {
                return Reason.DENIED;
            }
        }
        if (!allow.isEmpty() && allow.stream().noneMatch(r -> r.matches(address))) {
            return Reason.NOT_ALLOWED;
        }
        return rate == null || rate.tryAcquire(address) ? null : Reason.RATE_LIMITED;
    }
}
