package dev.tunnel.client.config;

import dev.tunnel.config.AddressRange;
import java.net.InetAddress;

/**
 * One entry of a proxy plugin's {@code allowDestinations}: an IP address or CIDR network,
 * optionally with a port ({@code 127.0.0.1:5432}, {@code 192.168.1.0/24}, {@code [::1]:8080},
 * {@code fd00::/8}). Addresses only, no host names: the plugin checks the address a name resolves
 * to, so a rule on a name would hold only until its DNS answer changes.
 *
 * @param range the address or network
 * @param port  the only port allowed, or 0 for any
 */
public record DestinationRule(AddressRange range, int port) {

    static final String EXPECTED = "expected: an IP address or CIDR network, optionally with :port,"
            + " e.g. \"127.0.0.1:5432\", \"192.168.1.0/24\" or \"[::1]:8080\"";

    /** Parses one entry; throws {@link IllegalArgumentException} saying what is expected. */
    public static DestinationRule parse(String entry) {
        String text = entry == null ? "" : entry.strip();
        String address = text;
        int port = 0;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0 || close + 1 < text.length() && text.charAt(close + 1) != ':') {
                throw invalid(entry);
            }
            address = text.substring(1, close);
            port = close + 1 < text.length() ? port(entry, text.substring(close + 2)) : 0;
        } else if (text.indexOf(':') >= 0 && text.indexOf(':') == text.lastIndexOf(':')) {
            address = text.substring(0, text.indexOf(':'));
            port = port(entry, text.substring(text.indexOf(':') + 1));
        }
        AddressRange range;
        try {
            range = AddressRange.parse(address);
        } catch (IllegalArgumentException e) {
            int prefix = e.getMessage().indexOf("\": prefix /"); // keep the range's own reason, quote the whole entry
            throw prefix < 0 ? invalid(entry)
                    : new IllegalArgumentException("\"" + entry + e.getMessage().substring(prefix));
        }
        return new DestinationRule(range, port);
    }

    /** How many leading bits of the address must match. */
    public int prefix() {
        return range.prefix();
    }

    /** Whether {@code address:port} falls under this rule. */
    public boolean matches(InetAddress address, int port) {
        return (this.port == 0 || this.port == port) && range.matches(address);
    }

    private static int port(String entry, String text) {
        try {
            int port = Integer.parseInt(text);
            if (port >= 1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // the message below says what is expected
        }
        throw new IllegalArgumentException("\"" + entry + "\": port \"" + text + "\" (expected: 1-65535)");
    }

    private static IllegalArgumentException invalid(String entry) {
        return new IllegalArgumentException("\"" + entry + "\" (" + EXPECTED + ")");
    }
}
