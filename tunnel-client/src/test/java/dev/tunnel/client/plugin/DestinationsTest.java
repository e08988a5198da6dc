package dev.tunnel.client.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.DestinationRule;
import dev.tunnel.client.config.PluginConfig;
import dev.tunnel.config.ConfigException;
import dev.tunnel.protocol.transport.Transports;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** Which destinations a proxy plugin refuses, how {@code allowDestinations} is written, and the start-up warning. */
@Timeout(20)
class DestinationsTest {
    private static final Destinations DEFAULT = Destinations.of(List.of());

    private static String refusal(Destinations d, String ip, int port) throws Exception {
        return d.refusal(new InetSocketAddress(InetAddress.getByName(ip), port));
    }

    @Test
    void byDefaultLoopbackUnspecifiedLinkLocalAndMulticastAreRefused() throws Exception {
        assertThat(refusal(DEFAULT, "127.0.0.1", 7400)).startsWith("a loopback address");
        assertThat(refusal(DEFAULT, "127.255.0.9", 22)).startsWith("a loopback address");
        assertThat(refusal(DEFAULT, "::1", 22)).startsWith("a loopback address");
        assertThat(refusal(DEFAULT, "::ffff:127.0.0.1", 22)).startsWith("a loopback address");
        assertThat(refusal(DEFAULT, "::127.0.0.1", 22)).startsWith("a loopback address");
        assertThat(refusal(DEFAULT, "0.0.0.0", 22)).startsWith("an unspecified address");
        assertThat(refusal(DEFAULT, "0.1.2.3", 22)).startsWith("an unspecified address");
        assertThat(refusal(DEFAULT, "::", 22)).startsWith("an unspecified address");
        assertThat(refusal(DEFAULT, "169.254.169.254", 80)).startsWith("a link-local address");
        assertThat(refusal(DEFAULT, "fe80::1", 80)).startsWith("a link-local address");
        assertThat(refusal(DEFAULT, "224.0.0.1", 80)).startsWith("a multicast address");
        assertThat(refusal(DEFAULT, "ff02::1", 80)).startsWith("a multicast address");
        assertThat(refusal(DEFAULT, "127.0.0.1", 7400)).endsWith("(list it in allowDestinations to allow it)");
    }

    @Test
    void byDefaultOtherHostsArePermitted() throws Exception {
        assertThat(refusal(DEFAULT, "192.0.2.10", 5432)).isNull();
        assertThat(refusal(DEFAULT, "198.51.100.7", 443)).isNull();
        assertThat(refusal(DEFAULT, "2001:db8::5", 443)).isNull();
    }

    @Test
    void byDefaultThisMachinesOwnAddressesAreRefused() throws Exception {
        InetAddress own = Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
                .flatMap(i -> Collections.list(i.getInetAddresses()).stream())
                .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress()).findFirst().orElse(null);
        assumeTrue(own != null, "this machine has no address beyond loopback");
        assertThat(DEFAULT.refusal(new InetSocketAddress(own, 7400))).as(own.toString())
                .startsWith("an address of this machine");
    }

    @Test
    void anAllowlistAllowsOnlyWhatItLists() throws Exception {
        Destinations d = Destinations.of(List.of("127.0.0.1:5432", "192.168.1.0/24", "[::1]:8080", "fd00::/8"));
        assertThat(refusal(d, "127.0.0.1", 5432)).isNull();
        assertThat(refusal(d, "127.0.0.1", 7400)).isEqualTo("not in allowDestinations");
        assertThat(refusal(d, "192.168.1.200", 22)).isNull();
        assertThat(refusal(d, "192.168.2.1", 22)).isEqualTo("not in allowDestinations");
        assertThat(refusal(d, "::1", 8080)).isNull();
        assertThat(refusal(d, "fdab::1", 1)).isNull();
        assertThat(refusal(d, "198.51.100.7", 443)).as("public hosts too, once a list is given")
                .isEqualTo("not in allowDestinations");
    }

    @Test
    void rulesParseAddressesNetworksAndPorts() {
        assertThat(DestinationRule.parse("10.0.0.0/8").prefix()).isEqualTo(8);
        assertThat(DestinationRule.parse("10.1.2.3").prefix()).isEqualTo(32);
        assertThat(DestinationRule.parse("[::1]:8080").port()).isEqualTo(8080);
        assertThat(DestinationRule.parse("::1").prefix()).isEqualTo(128);
        assertThat(DestinationRule.parse("10.0.0.0/12:22").port()).isEqualTo(22);
        assertThat(DestinationRule.parse("10.16.0.0/12").matches(addr("10.31.255.255"), 1)).isTrue();
        assertThat(DestinationRule.parse("10.16.0.0/12").matches(addr("10.32.0.0"), 1)).isFalse();
        assertThat(DestinationRule.parse("0.0.0.0/0").matches(addr("8.8.8.8"), 53)).isTrue();
    }

    @Test
    void badEntriesAreNamedByKeyPathWithWhatIsExpected() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ClientConfig.parse("""
                [[proxies]]
                name = "p"
                type = "tcp"
                remotePort = 6004
                [proxies.plugin]
                type = "socks5"
                allowDestinations = ["db.local:5432", "10.0.0.0/33", "127.0.0.1:0", "192.168.1.0/24"]
                """, "c.toml", name -> null));
        assertThat(e.getMessage()).contains(
                "c.toml:7: proxies[0].plugin.allowDestinations[0]: \"db.local:5432\" (expected: an IP address or CIDR"
                        + " network, optionally with :port, e.g. \"127.0.0.1:5432\", \"192.168.1.0/24\" or \"[::1]:8080\")",
                "proxies[0].plugin.allowDestinations[1]: \"10.0.0.0/33\": prefix /33 (expected: 0-32)",
                "proxies[0].plugin.allowDestinations[2]: \"127.0.0.1:0\": port \"0\" (expected: 1-65535)")
                .doesNotContain("allowDestinations[3]");
        ConfigException other = catchThrowableOfType(ConfigException.class, () -> ClientConfig.parse("""
                [[proxies]]
                name = "p"
                type = "tcp"
                remotePort = 6004
                [proxies.plugin]
                type = "tls2raw"
                localAddr = "127.0.0.1:22"
                allowDestinations = ["127.0.0.1"]
                """, "c.toml", name -> null));
        assertThat(other.getMessage()).contains("proxies[0].plugin.allowDestinations: not a key of plugin \"tls2raw\"");
    }

    @Test
    void aProxyPluginWithoutCredentialsIsWarnedAboutOnceAtStart() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(LocalPlugins.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        EventLoopGroup group = Transports.newGroup(1, "warn-test");
        try {
            PluginConfig open = new PluginConfig();
            open.type = "socks5";
            LocalPlugins.start("office", open, group).close();
            PluginConfig closed = new PluginConfig();
            closed.type = "http_proxy";
            closed.httpUser = "u";
            closed.httpPassword = "p";
            LocalPlugins.start("web", closed, group).close();
            assertThat(logged.list).hasSize(1);
            assertThat(logged.list.get(0).getLevel()).isEqualTo(Level.WARN);
            assertThat(logged.list.get(0).getFormattedMessage()).isEqualTo("proxy [office]: plugin socks5 has no"
                    + " username/password: anyone who reaches its remote port can use it to reach any address beyond"
                    + " this machine (set the credentials, or allowDestinations to narrow it)");
        } finally {
            logger.detachAppender(logged);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static InetAddress addr(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
