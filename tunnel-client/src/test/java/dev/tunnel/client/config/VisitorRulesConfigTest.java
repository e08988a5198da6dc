package dev.tunnel.client.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tunnel.config.ConfigException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code allowIPs}, {@code denyIPs} and {@code maxNewConnsPerIPPerMinute} as verify checks them. */
class VisitorRulesConfigTest {

    @Test
    void goodRulesLoadOnEveryType() throws Exception {
        ClientConfig c = ClientConfig.parse("""
                [[proxies]]
                name = "ssh"
                localPort = 22
                remotePort = 6000
                allowIPs = ["192.168.1.0/24", "2001:db8::/32", "203.0.113.7"]
                denyIPs = ["192.168.1.66"]
                maxNewConnsPerIPPerMinute = 30

                [[proxies]]
                name = "web"
                type = "http"
                localPort = 80
                customDomains = ["example.test"]
                denyIPs = ["::1"]
                """, "c.toml", name -> null);
        assertThat(c.proxies.get(0).allowIPs).containsExactly("192.168.1.0/24", "2001:db8::/32", "203.0.113.7");
        assertThat(c.proxies.get(0).maxNewConnsPerIPPerMinute).isEqualTo(30);
        assertThat(c.proxies.get(1).denyIPs).isEqualTo(List.of("::1"));
        assertThat(c.proxies.get(1).hasVisitorRules()).isTrue();
    }

    @Test
    void aBadEntryIsNamedByFileLineKeyAndValue() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ClientConfig.parse("""
                [[proxies]]
                name = "ssh"
                localPort = 22
                allowIPs = ["10.0.0.0/8", "10.0.0.0/33"]
                denyIPs = ["evil.example.com"]
                maxNewConnsPerIPPerMinute = -5
                """, "c.toml", name -> null));
        assertThat(e.getMessage()).contains(
                "c.toml:4: proxies[0].allowIPs[1]: \"10.0.0.0/33\": prefix /33 (expected: 0-32)",
                "c.toml:5: proxies[0].denyIPs[0]: \"evil.example.com\" (expected: an IPv4 or IPv6 address or CIDR network",
                "c.toml:6: proxies[0].maxNewConnsPerIPPerMinute: -5 (expected: 0-1000000)");
    }
}
