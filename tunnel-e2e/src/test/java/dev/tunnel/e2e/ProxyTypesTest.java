package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.e2e.linetype.LineClientType;
import dev.tunnel.e2e.linetype.LineServerType;
import dev.tunnel.server.ProxyStatus;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import dev.tunnel.server.proxy.ServerProxyTypes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A proxy type is its own package plus one registration line per side: the test-only
 * {@code line} type (dev.tunnel.e2e.linetype) shares one public port between sessions, routes
 * on a connection's first line and hands the socket to the session's link with the bytes behind
 * it, in both transport modes. Its traffic is counted on both sides.
 */
@Timeout(60)
class ProxyTypesTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aTypeInItsOwnPackageCarriesConnectionsAndCountsThem(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        LineServerType line = new LineServerType();
        ServerConfig serverConfig = TunnelExtension.serverConfig();
        mode.apply(serverConfig);
        TunnelServer server = tunnel.startServer(serverConfig, ServerProxyTypes.standard().register(line));
        TunnelClient client = startClient(server, mode, ClientProxyTypes.standard().register(new LineClientType()),
                lineProxy("echo", echo.port()));
        assertThat(client.awaitRemotePort("echo", TunnelExtension.LOGIN_TIMEOUT)).as("no port of its own").isZero();

        byte[] data = Payloads.random(300_000, 13);
        byte[] sent = withLine("echo", data);
        assertThat(PublicClient.roundTrip(line.port(), sent)).isEqualTo(Payloads.summary(data));

        await("the server counts the proxy's traffic").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            ProxyStatus status = server.proxies().stream().filter(p -> p.name().equals("echo")).findFirst().orElseThrow();
            assertThat(status.type()).isEqualTo("line");
            assertThat(status.traffic().bytesRead()).as("read from the public connection").isEqualTo(data.length);
            assertThat(status.traffic().bytesWritten()).as("written to it").isEqualTo(data.length);
            assertThat(status.traffic().connections()).isEqualTo(1);
            assertThat(status.traffic().open()).isZero();
        });
        await("the client counts it too").atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            var traffic = client.traffic("echo").orElseThrow();
            assertThat(traffic.bytesWritten()).as("written to the local app").isEqualTo(data.length);
            assertThat(traffic.bytesRead()).as("read from it").isEqualTo(data.length);
            assertThat(traffic.connections()).isEqualTo(1);
        });
    }

    @Test
    void aTypeTheServerLacksIsRefusedNamingTheCapabilityAndBothVersions() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        TunnelClient client = startClient(server, Mode.MUX,
                ClientProxyTypes.standard().register(new LineClientType()), lineProxy("echo", echo.port()));
        await().atMost(TunnelExtension.LOGIN_TIMEOUT).until(() -> client.proxy("echo").isPresent());
        assertThat(client.proxy("echo").orElseThrow().error())
                .contains("proxy type \"line\" is not supported by this server")
                .contains("lacks capability proxy.line").contains("upgrade the server");
    }

    private TunnelClient startClient(TunnelServer server, Mode mode, ClientProxyTypes types, ProxyConfig proxy)
            throws Exception {
        ClientConfig config = TunnelExtension.clientConfig(server, false);
        mode.apply(config);
        config.proxies.add(proxy);
        TunnelClient client = tunnel.startClient(config, types);
        client.firstLogin().get(TunnelExtension.LOGIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return client;
    }

    static ProxyConfig lineProxy(String name, int localPort) {
        ProxyConfig proxy = TunnelExtension.proxyConfig(name, localPort, 0);
        proxy.type = LineServerType.NAME;
        return proxy;
    }

    static byte[] withLine(String route, byte[] data) {
        byte[] head = (route + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + data.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(data, 0, all, head.length, data.length);
        return all;
    }
}
