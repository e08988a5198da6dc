package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One client with tens of thousands of proxies: registering and tearing them all down costs
 * each proxy a constant amount of work, and the teardown shares the event loop with the other
 * clients' sessions instead of taking it over: another client's visitor is answered meanwhile.
 * {@code maxProxiesPerClient} caps how many a client may hold, counting those without a port.
 */
@Timeout(180)
class ManyProxiesTest {
    private static final int PROXIES = 20_000;

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void closingTwentyThousandProxiesLeavesTheOtherClientsAnswered() throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig serverConfig = TunnelExtension.serverConfig();
        serverConfig.transport.eventLoopThreads = 1; // every session on one loop, as on a 1-core VPS
        serverConfig.maxProxiesPerClient = 0;
        serverConfig.transport.loginTimeout = 120; // 20,000 registrations ride behind the login
        TunnelServer server = tunnel.startServer(serverConfig);

        ClientConfig other = TunnelExtension.clientConfig(server, false);
        other.proxies.add(TunnelExtension.proxyConfig("echo", echo.port(), 0));
        int echoPort = tunnel.startClient(other).awaitRemotePort("echo", TunnelExtension.LOGIN_TIMEOUT);

        ClientConfig many = TunnelExtension.clientConfig(server, false);
        for (int i = 0; i < PROXIES; i++) {
            ProxyConfig p = TunnelExtension.proxyConfig("s" + i, echo.port(), 0);
            p.type = "stcp";
            p.secretKey = "k";
            many.proxies.add(p);
        }
        TunnelClient big = tunnel.startClient(many);
        await("every proxy registered").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> server.proxies().size() == PROXIES + 1);

        CompletableFuture<Void> closing = CompletableFuture.runAsync(big::close);
        // the other client's proxy answers while the big session's proxies close on the same loop
        assertThat(echoOnce(echoPort, "ping")).isEqualTo("ping");
        closing.get(60, TimeUnit.SECONDS);
        await("the big session's proxies closed").atMost(Duration.ofSeconds(60))
                .until(() -> server.proxies().size() == 1);
        assertThat(echoOnce(echoPort, "pong")).isEqualTo("pong");
    }

    @Test
    void proxiesPastMaxProxiesPerClientAreRefusedWithTheKeyAndTheOthersWork() throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig serverConfig = TunnelExtension.serverConfig();
        serverConfig.maxProxiesPerClient = 3;
        TunnelServer server = tunnel.startServer(serverConfig);
        ClientConfig config = TunnelExtension.clientConfig(server, false);
        config.proxies.add(TunnelExtension.proxyConfig("echo", echo.port(), 0));
        for (String name : List.of("s1", "s2", "s3")) { // no port, counted all the same
            ProxyConfig p = TunnelExtension.proxyConfig(name, echo.port(), 0);
            p.type = "stcp";
            p.secretKey = "k";
            config.proxies.add(p);
        }
        TunnelClient client = tunnel.startClient(config);
        await("answers to every proxy").atMost(TunnelExtension.LOGIN_TIMEOUT)
                .until(() -> List.of("echo", "s1", "s2", "s3").stream().allMatch(n -> client.proxy(n).isPresent()));

        assertThat(client.proxy("s3").orElseThrow().error())
                .contains("this client already has 3 proxies, the most the server allows (maxProxiesPerClient = 3)");
        await().atMost(Duration.ofSeconds(10)).until(() -> CapturedLogs.snapshot().stream().anyMatch(line ->
                line.contains("proxy [s3] start error") && line.contains("maxProxiesPerClient = 3")));
        for (String name : List.of("echo", "s1", "s2")) {
            assertThat(client.proxy(name).orElseThrow().error()).as(name).isEmpty();
        }
        assertThat(echoOnce(client.awaitRemotePort("echo", TunnelExtension.LOGIN_TIMEOUT), "still")).isEqualTo("still");
    }

    /** One round trip through a public port; the read times out after 3 s. */
    private static String echoOnce(int port, String text) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(3000);
            OutputStream out = s.getOutputStream();
            out.write(text.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            byte[] back = in.readNBytes(text.length());
            return new String(back, StandardCharsets.US_ASCII);
        }
    }
}
