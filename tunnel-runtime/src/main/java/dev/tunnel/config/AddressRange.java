package dev.tunnel.config;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.util.Arrays;

/**
 * An IP address or CIDR network written in a config ({@code 192.168.1.7}, {@code 10.0.0.0/8},
 * {@code ::1}, {@code fd00::/8}): addresses only, never host names (a rule on a name would hold
 * only until its DNS answer changes). An IPv4 network also matches the IPv4-mapped IPv6 form of
 * its addresses ({@code ::ffff:10.1.2.3}), as a dual-stack socket may report a peer.
 *
 * @param network the network's address bytes (4 or 16)
 * @param prefix  how many leading bits must match
 */
public record AddressRange(byte[] network, int prefix) {

    /** What a config value must look like, for error messages. */
    public static final String EXPECTED = "expected: an IPv4 or IPv6 address or CIDR network, e.g. \"192.168.1.7\","
            + " \"10.0.0.0/8\" or \"fd00::/8\"";

    /** Parses one entry; throws {@link IllegalArgumentException} quoting it and saying what is expected. */
    public static AddressRange parse(String entry) {
        String text = entry == null ? "" : entry.strip();
        int slash = text.indexOf('/');
        byte[] bytes = NetUtil.createByteArrayFromIpAddressString(slash < 0 ? text : text.substring(0, slash));
        if (bytes == null) {
            throw new IllegalArgumentException("\"" + entry + "\" (" + EXPECTED + ")");
        }
        int prefix = bytes.length * 8;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(text.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("\"" + entry + "\" (" + EXPECTED + ")");
            }
            if (prefix < 0 || prefix > bytes.length * 8) {
                throw new IllegalArgumentException("\"" + entry + "\": prefix /" + prefix + " (expected: 0-"
                        + bytes.length * 8 + ")");
            }
        }
        return new AddressRange(bytes, prefix);
    }

    /** Whether {@code address} is in this network. */
    public boolean matches(InetAddress address) {
        byte[] bytes = address.getAddress();
        if (bytes.length == 16 && network.length == 4 && isV4Mapped(bytes)) {
            bytes = Arrays.copyOfRange(bytes, 12, 16);
        }
        if (bytes.length != network.length) {
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

    private static boolean isV4Mapped(byte[] v6) {
        for (int i = 0; i < 10; i++) {
            if (v6[i] != 0) {
                return false;
            }
        }
        return v6[10] == (byte) 0xFF && v6[11] == (byte) 0xFF;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AddressRange other && prefix == other.prefix && Arrays.equals(network, other.network);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(network) + prefix;
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + prefix;
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e); // 4 or 16 bytes, checked by parse
        }
    }
}
