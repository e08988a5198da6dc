package dev.tunnel.client.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tunnel.config.ConfigException;
import org.junit.jupiter.api.Test;

/**
 * What verify says of {@code bandwidthLimit} and {@code proxyProtocolVersion} on udp, sudp and
 * stcp proxies, and of a visitor without a listener ({@code bindPort = -1}).
 */
class UdpAndVisitorKeysTest {

    private static String errors(String toml) {
        return catchThrowableOfType(ConfigException.class, () -> ClientConfig.parse(toml, "c.toml", name -> null))
                .getMessage();
    }

    @Test
    void udpTakesBothLimitModesAndAV2HeaderSudpTheClientModeStcpAnyHeader() throws Exception {
        ClientConfig c = ClientConfig.parse("""
                [[proxies]]
                name = "dns"
                type = "udp"
                localPort = 53
                transport.bandwidthLimit = "1MB"
                transport.bandwidthLimitMode = "server"
                transport.proxyProtocolVersion = "v2"
                [[proxies]]
                name = "game"
                type = "sudp"
                localPort = 27015
                secretKey = "k"
                transport.bandwidthLimit = "500KB"
                [[proxies]]
                name = "ssh"
                type = "stcp"
                localPort = 22
                secretKey = "k"
                transport.proxyProtocolVersion = "v1"
                """, "c.toml", name -> null);
        assertThat(c.proxies).hasSize(3);
    }

    @Test
    void whatCannotBeAppliedIsRefusedSayingWhy() {
        assertThat(errors("""
                [[proxies]]
                name = "dns"
                type = "udp"
                localPort = 53
                transport.proxyProtocolVersion = "v1"
                [[proxies]]
                name = "game"
                type = "sudp"
                localPort = 27015
                secretKey = "k"
                transport.proxyProtocolVersion = "v2"
                transport.bandwidthLimit = "500KB"
                transport.bandwidthLimitMode = "server"
                """)).contains(
                "c.toml:5: proxies[0].transport.proxyProtocolVersion: \"v1\" names TCP connections only",
                "c.toml:11: proxies[1].transport.proxyProtocolVersion: \"v2\" is not supported for sudp",
                "proxies[1].transport.bandwidthLimit: a sudp proxy is limited in mode \"client\" only");
    }

    @Test
    void aVisitorWithoutAListenerIsRefusedNamingWhy() {
        assertThat(errors("""
                [[visitors]]
                name = "v"
                type = "stcp"
                serverName = "ssh"
                secretKey = "k"
                bindPort = -1
                """)).contains("c.toml:6: visitors[0].bindPort: -1 is not supported: in frp a visitor without a"
                + " listener is reached only through another visitor's fallbackTo (xtcp) or a visitor plugin");
    }
}
