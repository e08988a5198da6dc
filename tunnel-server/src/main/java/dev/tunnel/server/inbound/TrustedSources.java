package dev.tunnel.server.inbound;

import io.netty.handler.ipfilter.IpFilterRuleType;
import io.netty.handler.ipfilter.IpSubnetFilterRule;
import io.netty.util.NetUtil;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The balancers whose PROXY protocol header the public ports believe ({@code proxyProtocolTrustedIPs}):
 * single addresses or CIDR networks, matched with Netty's {@link IpSubnetFilterRule}. Empty means
 * the public ports take no header at all (and do not look for one).
 *
 * <p>Threading: immutable.
 */
public final class TrustedSources {
    private static final TrustedSources NONE = new TrustedSources(List.of());

    private final List<IpSubnetFilterRule> rules;

    private TrustedSources(List<IpSubnetFilterRule> rules) {
        this.rules = rules;
    }

    /** No trusted balancer: the PROXY protocol is off. */
    public static TrustedSources none() {
        return NONE;
    }

    /**
     * Parses the entries; throws {@link IllegalArgumentException} naming the first bad one and
     * what is allowed.
     */
    public static TrustedSources parse(List<String> entries) {
        List<IpSubnetFilterRule> rules = new ArrayList<>();
        for (String entry : entries) {
            rules.add(rule(entry));
        }
        return rules.isEmpty() ? NONE : new TrustedSources(List.copyOf(rules));
    }

    /** Why {@code entry} is not an address or network, or null when it is one. */
    public static String problem(String entry) {
        try {
            rule(entry);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static IpSubnetFilterRule rule(String entry) {
        String text = entry == null ? "" : entry.trim();
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(address);
        if (bytes == null) {
            throw new IllegalArgumentException("\"" + entry + "\" (expected: an IP address such as 127.0.0.1"
                    + " or a CIDR network such as 10.0.0.0/8; no host names)");
        }
        int prefix = bytes.length * 8;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(text.substring(slash + 1));
            } catch (NumberFormatException e) {
                prefix = -1;
            }
            if (prefix < 0 || prefix > bytes.length * 8) {
                throw new IllegalArgumentException("\"" + entry + "\": prefix /" + text.substring(slash + 1)
                        + " (expected: 0-" + bytes.length * 8 + ")");
            }
        }
        return new IpSubnetFilterRule(address, prefix, IpFilterRuleType.ACCEPT);
    }

    /** Whether any balancer is trusted, that is whether the public ports read PROXY headers. */
    public boolean enabled() {
        return !rules.isEmpty();
    }

    /** Whether a connection from {@code peer} must start with a PROXY header (and may). */
    public boolean trusts(SocketAddress peer) {
        if (!(peer instanceof InetSocketAddress address) || address.getAddress() == null) {
            return false;
        }
        for (IpSubnetFilterRule rule : rules) {
            if (rule.matches(address)) {
                return true;
            }
        }
        return false;
    }
}
