package dev.tunnel.client.config;

import io.netty.util.NetUtil;
import java.net.InetAddress;

/**
 * One entry of a proxy plugin's {@code allowDestinations}: an IP address or CIDR network,
 * optionally with a port ({@code 127.0.0.1:5432}, {@code 192.168.1.0/24}, {@code [::1]:8080},
 * {@code fd00::/8}). Addresses only, no host names: the plugin checks the address a name resolves
 * to, so a rule on a name would hold only until its DNS answer changes.
 *
 * @param network the network's address bytes (4 or 16)
 * @param prefix  how many leading bits must match
 * @param port    the only port allowed, or 0 for any
 */
public record DestinationRule(byte[] network, int prefix, int port) {

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
        int slash = address.indexOf('/');
        String ip = slash < 0 ? address : address.substring(0, slash);
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(ip);
        if (bytes == null) {
            throw invalid(entry);
        }
        int prefix = bytes.length * 8;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(address.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw invalid(entry);
            }
            if (prefix < 0 || prefix > bytes.length * 8) {
                throw new IllegalArgumentException("\"" + entry + "\": prefix /" + prefix + " (expected: 0-"
                        + bytes.length * 8 + ")");
            }
        }
        return new DestinationRule(bytes, prefix, port);
    }

    /** Whether {@code address:port} falls under this rule. */
    public boolean matches(InetAddress address, int port) {
        byte[] bytes = address.getAddress();
        if (bytes.length != network.length || this.port != 0 && this.port != port) {
            return false;
        }
        int full = prefix / 8;
        for (int i = 0; i < full; i++) {
            if (bytes[i] != network[i]) {
                return false;
            }
        }
        int rest = prefix % 8;
        int mask = (0xFF << (8 - rest)) & 0xFF;
        return rest == 0 || (bytes[full] & mask) == (network[full] & mask);
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
