package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.ServerStatus;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.client.config.VisitorConfig;
import dev.tunnel.server.TunnelServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An stcp provider and its visitor, both on two servers in {@code all} mode: the visitor's local
 * port opens its streams on one live session, and moves to the other server's session when the
 * server it used goes away.
 */
@Timeout(60)
class MultiServerVisitorTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void theVisitorMovesToTheOtherServerWhenItsServerGoes() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer a = TunnelServer.start(TunnelExtension.serverConfig());
        boolean[] aClosed = {false};
        tunnel.closeAfterTest(() -> {
            if (!aClosed[0]) {
                a.close();
        aClosed[0] = true;
            }
        });
        int bindB = FreePorts.one();
        List<String> servers = List.of("127.0.0.1:" + a.port(), "127.0.0.1:" + bindB);

        ClientConfig provider = client(servers);
        ProxyConfig secret = TunnelExtension.proxyConfig("secret", echo.port(), 0);
        secret.type = "stcp";
        secret.secretKey = "k3y";
        provider.proxies.add(secret);
        TunnelClient providerClient = tunnel.startClient(provider);

        int visitorPort = FreePorts.one();
        ClientConfig visitor = client(servers);
        VisitorConfig v = new VisitorConfig();
        v.name = "v";
        v.type = "stcp";
        v.serverName = "secret";
        v.secretKey = "k3y";
        v.bindPort = visitorPort;
        visitor.visitors.add(v);
        TunnelClient visitorClient = tunnel.startClient(visitor);
        await("the visitor works through server a").atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .until(() -> PublicConn.echoes("127.0.0.1", visitorPort));

        TunnelServer b = tunnel.startServer(withPort(bindB)); // b comes up after the visitor chose a
        await("both clients on both servers").atMost(Duration.ofSeconds(10)).until(() -> b.sessionCount() == 2
                && online(providerClient) && online(visitorClient));
        a.close();
        aClosed[0] = true;
        await("the visitor works through server b").atMost(Duration.ofSeconds(5)).ignoreExceptions()
                .until(() -> PublicConn.echoes("127.0.0.1", visitorPort));
    }

    private static boolean online(TunnelClient client) {
        return client.servers().stream().allMatch(s -> s.state() == ServerStatus.State.ONLINE);
    }

    private static dev.tunnel.server.config.ServerConfig withPort(int bindPort) {
        dev.tunnel.server.config.ServerConfig sc = TunnelExtension.serverConfig();
        sc.bindPort = bindPort;
        return sc;
    }

    private static ClientConfig client(List<String> servers) {
        ClientConfig cc = new ClientConfig();
        cc.auth.token = TunnelExtension.TOKEN;
        cc.transport.tls.enable = false;
        cc.loginFailExit = false;
        cc.transport.drainTimeout = 0;
        cc.serverAddrs = servers;
        return cc;
    }
}
