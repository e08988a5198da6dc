package dev.tunnel.server.vhost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SmallVhostPartsTest {

    @Test
    void hostHeadersLoseTheirPortCaseAndTrailingDot() {
        assertThat(HostNames.fromHostHeader("App.Example.COM:8080")).isEqualTo("app.example.com");
        assertThat(HostNames.fromHostHeader("app.example.com.")).isEqualTo("app.example.com");
        assertThat(HostNames.fromHostHeader("[::1]:80")).isEqualTo("::1");
        assertThat(HostNames.fromHostHeader("  ")).isNull();
        assertThat(HostNames.fromHostHeader(null)).isNull();
    }

    @Test
    void registrableDomainsAreNamesOrLeadingWildcards() {
        assertThat(HostNames.problem("app.example.com")).isNull();
        assertThat(HostNames.problem("*.example.com")).isNull();
        assertThat(HostNames.problem("*")).isNull();
        assertThat(HostNames.problem("a.*.example.com")).contains("first label");
        assertThat(HostNames.problem("a..b")).contains("label");
        assertThat(HostNames.problem("a b.com")).contains("' '");
        assertThat(HostNames.problem("")).isEqualTo("empty domain");
        assertThat(HostNames.problem("a".repeat(64) + ".com")).contains("1-63");
    }

    @Test
    void allowListsTakeExactNamesAndEverythingBelowAWildcard() {
        DomainAllowList list = DomainAllowList.of(List.of("alice.example.com", "*.alice.dev"));
        assertThat(list.allows("alice.example.com")).isTrue();
        assertThat(list.allows("bob.example.com")).isFalse();
        assertThat(list.allows("www.alice.dev")).isTrue();
        assertThat(list.allows("a.b.alice.dev")).isTrue();
        assertThat(list.allows("*.alice.dev")).isTrue();
        assertThat(list.allows("*.x.alice.dev")).isTrue();
        assertThat(list.allows("alice.dev")).as("the apex is not below the wildcard").isFalse();
        assertThat(list.allows("*.dev")).isFalse();
        assertThat(list.allows("evilalice.dev")).isFalse();
        assertThat(DomainAllowList.of(List.of()).allows("anything.org")).isTrue();
    }

    @Test
    void basicCredentialsParseAndCompare() {
        String header = "Basic " + Base64.getEncoder().encodeToString("alice:s3cr:et".getBytes(StandardCharsets.UTF_8));
        BasicCredentials c = BasicCredentials.parse(header);
        assertThat(c).isEqualTo(new BasicCredentials("alice", "s3cr:et"));
        assertThat(c.matches("alice", "s3cr:et")).isTrue();
        assertThat(c.matches("alice", "s3cr:eT")).isFalse();
        assertThat(c.matches("alic", "s3cr:et")).isFalse();
        assertThat(c.toString()).doesNotContain("s3cr");
        assertThat(BasicCredentials.parse("Bearer abc")).isNull();
        assertThat(BasicCredentials.parse("Basic !!!")).isNull();
        assertThat(BasicCredentials.parse("Basic " + Base64.getEncoder().encodeToString("nocolon".getBytes()))).isNull();
        assertThat(BasicCredentials.userOf(header)).isEqualTo("alice");
        assertThat(BasicCredentials.userOf(null)).isEmpty();
    }

    @Test
    void proxyProtocolV1NamesTheVisitorAndThePublicAddress() {
        ByteBuf header = ProxyProtocolHeader.encode(HAProxyProtocolVersion.V1,
                new InetSocketAddress("203.0.113.7", 40000), new InetSocketAddress("198.51.100.1", 443));
        try {
            assertThat(header.toString(StandardCharsets.US_ASCII))
                    .isEqualTo("PROXY TCP4 203.0.113.7 198.51.100.1 40000 443\r\n");
        } finally {
            header.release();
        }
    }

    @Test
    void proxyProtocolV2StartsWithItsSignatureAndCarriesIpv6() {
        ByteBuf header = ProxyProtocolHeader.encode(HAProxyProtocolVersion.V2,
                new InetSocketAddress("2001:db8::7", 40000), new InetSocketAddress("198.51.100.1", 443));
        try {
            byte[] signature = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
            byte[] start = new byte[12];
            header.getBytes(0, start);
            assertThat(start).isEqualTo(signature);
            assertThat(header.getByte(12)).isEqualTo((byte) 0x21); // version 2, PROXY
            assertThat(header.getByte(13)).isEqualTo((byte) 0x21); // TCP over IPv6
            assertThat(header.readableBytes()).isEqualTo(16 + 36);
        } finally {
            header.release();
        }
    }

    @Test
    void proxyProtocolVersionValues() {
        assertThat(ProxyProtocolHeader.version("")).isNull();
        assertThat(ProxyProtocolHeader.version("v2")).isEqualTo(HAProxyProtocolVersion.V2);
        assertThatThrownBy(() -> ProxyProtocolHeader.version("v3")).hasMessageContaining("expected");
    }
}
