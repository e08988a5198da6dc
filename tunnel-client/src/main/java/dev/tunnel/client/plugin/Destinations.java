package dev.tunnel.client.plugin;

import dev.tunnel.client.config.DestinationRule;
import dev.tunnel.runtime.BurstLog;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an {@code http_proxy} or {@code socks5} plugin may connect for a visitor. A visitor of
 * such a proxy stands, network-wise, on the client's machine: without a limit it reaches the
 * client's admin API (config and token included) and every service that trusts loopback.
 *
 * <ul>
 *   <li>With {@code allowDestinations} set, only the addresses and networks it lists (each
 *       optionally with a port).</li>
 *   <li>Without it, any address except loopback ({@code 127.0.0.0/8}, {@code ::1}), unspecified
 *       ({@code 0.0.0.0/8}, {@code ::}), link-local ({@code 169.254.0.0/16}: cloud metadata
 *       services; {@code fe80::/10}), multicast, and the addresses of this machine's own
 *       interfaces, which is where the client's admin API and visitor ports listen.</li>
 * </ul>
 * IPv6 forms that embed an IPv4 address ({@code ::ffff:127.0.0.1}, {@code ::127.0.0.1}) are
 * judged by that IPv4 address. The check is made on the resolved address that is then dialed,
 * so a name cannot resolve to one address for the check and another for the connection.
 *
 * <p>Immutable; {@link #refusal} may run on any thread (it asks the OS for the interface
 * addresses only for an address that passed every other check).
 */
final class Destinations {
    private static final Logger LOG = LoggerFactory.getLogger(Destinations.class);
    /** A visitor chooses the destination, so refusals are burst-suppressed. */
    private static final BurstLog REFUSALS = new BurstLog(LOG);

    private final List<DestinationRule> allowed;

    private Destinations(List<DestinationRule> allowed) {
        this.allowed = allowed;
    }

    /** From {@code allowDestinations} (validated already); empty = the default rules. */
    static Destinations of(List<String> allowDestinations) {
        return new Destinations(allowDestinations == null ? List.of()
                : allowDestinations.stream().map(DestinationRule::parse).toList());
    }

    /** Why {@code target} (resolved) may not be dialed, or null when it may. */
    String refusal(InetSocketAddress target) {
        InetAddress address = embeddedIpv4(target.getAddress());
        if (!allowed.isEmpty()) {
            return allowed.stream().anyMatch(r -> r.matches(address, target.getPort())) ? null
                    : "not in allowDestinations";
        }
        String kind = address.isLoopbackAddress() ? "a loopback address"
                : address.isAnyLocalAddress() || address instanceof Inet4Address && address.getAddress()[0] == 0
                ? "an unspecified address"
                : address.isLinkLocalAddress() ? "a link-local address"
                : address.isMulticastAddress() ? "a multicast address"
                : isThisMachine(address) ? "an address of this machine" : null;
        return kind == null ? null : kind + " (list it in allowDestinations to allow it)";
    }

    /** Logs a refusal, at most once per burst. */
    static void logRefusal(String who, String asked, InetSocketAddress resolved, String why) {
        REFUSALS.warn("{} refused {} ({}): {}", who, asked, resolved.getAddress().getHostAddress(), why);
    }

    /** The IPv4 address inside an IPv4-mapped or IPv4-compatible IPv6 address, else {@code address}. */
    static InetAddress embeddedIpv4(InetAddress address) {
        if (!(address instanceof Inet6Address)) {
            return address;
        }
        byte[] b = address.getAddress();
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return address;
            }
        }
        boolean mapped = b[10] == (byte) 0xFF && b[11] == (byte) 0xFF;
        boolean compatible = b[10] == 0 && b[11] == 0 && (b[12] | b[13] | b[14] | b[15] & 0xFE) != 0; // not :: or ::1
        if (!mapped && !compatible) {
            return address;
        }
        try {
            return InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
    }

    private static boolean isThisMachine(InetAddress address) {
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return true; // cannot tell: refuse rather than risk the machine's own ports
        }
    }
}
