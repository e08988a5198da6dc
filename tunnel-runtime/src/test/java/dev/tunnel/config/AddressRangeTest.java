package dev.tunnel.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class AddressRangeTest {

    private static InetAddress ip(String text) throws Exception {
        return InetAddress.getByAddress(NetUtil.createByteArrayFromIpAddressString(text));
    }

    @Test
    void aSingleAddressMatchesOnlyItself() throws Exception {
        AddressRange one = AddressRange.parse("127.0.0.1");
        assertThat(one.prefix()).isEqualTo(32);
        assertThat(one.matches(ip("127.0.0.1"))).isTrue();
        assertThat(one.matches(ip("127.0.0.2"))).isFalse();
        assertThat(AddressRange.parse("::1").matches(ip("::1"))).isTrue();
        assertThat(AddressRange.parse("::1").matches(ip("127.0.0.1"))).isFalse();
    }

    @Test
    void networksMatchTheirPrefixOnBitBoundariesAndAcrossBytes() throws Exception {
        AddressRange r = AddressRange.parse("10.16.0.0/12");
        assertThat(r.matches(ip("10.16.0.0"))).isTrue();
        assertThat(r.matches(ip("10.31.255.255"))).isTrue();
        assertThat(r.matches(ip("10.32.0.0"))).isFalse();
        assertThat(r.matches(ip("10.15.255.255"))).isFalse();
        assertThat(AddressRange.parse("0.0.0.0/0").matches(ip("203.0.113.9"))).isTrue();
        assertThat(AddressRange.parse("0.0.0.0/0").matches(ip("2001:db8::1"))).as("families never mix").isFalse();
        AddressRange v6 = AddressRange.parse("2001:db8:abcd::/48");
        assertThat(v6.matches(ip("2001:db8:abcd:12::7"))).isTrue();
        assertThat(v6.matches(ip("2001:db8:abce::7"))).isFalse();
        assertThat(AddressRange.parse("fd00::/8").matches(ip("fdff::1"))).isTrue();
    }

    @Test
    void anIpv4NetworkMatchesTheMappedIpv6FormOfItsAddresses() throws Exception {
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xFF;
        mapped[11] = (byte) 0xFF;
        mapped[12] = (byte) 192;
        mapped[13] = (byte) 168;
        mapped[14] = 1;
        mapped[15] = 7;
        // getByAddress turns 16 mapped bytes into an Inet4Address; a dual-stack socket may still hand over the bytes
        assertThat(AddressRange.parse("192.168.1.0/24").matches(ip("::ffff:192.168.1.7"))).isTrue();
        assertThat(java.net.Inet6Address.getByAddress(null, mapped, -1)).satisfies(
                a -> assertThat(AddressRange.parse("192.168.1.0/24").matches(a)).isTrue());
        assertThat(AddressRange.parse("192.168.2.0/24").matches(ip("::ffff:192.168.1.7"))).isFalse();
    }

    @Test
    void badEntriesSayWhatIsExpected() {
        assertThatThrownBy(() -> AddressRange.parse("10.0.0.300")).hasMessage("\"10.0.0.300\" ("
                + AddressRange.EXPECTED + ")");
        assertThatThrownBy(() -> AddressRange.parse("example.com")).hasMessageStartingWith("\"example.com\" (expected:");
        assertThatThrownBy(() -> AddressRange.parse("10.0.0.0/33")).hasMessage("\"10.0.0.0/33\": prefix /33 (expected: 0-32)");
        assertThatThrownBy(() -> AddressRange.parse("::/129")).hasMessage("\"::/129\": prefix /129 (expected: 0-128)");
        assertThatThrownBy(() -> AddressRange.parse("10.0.0.0/x")).hasMessageStartingWith("\"10.0.0.0/x\" (expected:");
        assertThatThrownBy(() -> AddressRange.parse("")).hasMessageStartingWith("\"\" (expected:");
    }
}
