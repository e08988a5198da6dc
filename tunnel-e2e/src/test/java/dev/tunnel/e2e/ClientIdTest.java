package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.server.TunnelServer;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One online client per {@code clientID}, as frp's server keeps it: a second client process with
 * the clientID of one that is online is refused at login and the first keeps serving; once the
 * first has left, the clientID is free again. Clients without a clientID are never compared.
 */
@Timeout(60)
class ClientIdTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void aSecondClientWithAnOnlineClientIdIsRefusedAndTheFirstKeepsServing() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        TunnelClient first = tunnel.startClient(client(server, "nas-1", "ssh", echo.port()));
        first.firstLogin().get(10, TimeUnit.SECONDS);
        int port = first.awaitRemotePort("ssh", Duration.ofSeconds(10));

        TunnelClient second = tunnel.startClient(client(server, "nas-1", "web", echo.port()));
        assertThat(second.firstLogin()).failsWithin(Duration.ofSeconds(20)).withThrowableOfType(ExecutionException.class)
                .withMessageContaining("clientID \"nas-1\" is already online");
        byte[] data = Payloads.random(4096, 1);
        assertThat(PublicClient.roundTrip(port, data)).as("the first client still serves").isEqualTo(Payloads.summary(data));

        TunnelClient other = tunnel.startClient(client(server, "nas-2", "web", echo.port()));
        other.firstLogin().get(10, TimeUnit.SECONDS);
        TunnelClient unnamed = tunnel.startClient(client(server, "", "db", echo.port()));
        unnamed.firstLogin().get(10, TimeUnit.SECONDS);

        first.close();
        TunnelClient again = tunnel.startClient(client(server, "nas-1", "ssh", echo.port()));
        again.firstLogin().get(20, TimeUnit.SECONDS);
        int portAgain = again.awaitRemotePort("ssh", Duration.ofSeconds(10));
        assertThat(PublicClient.roundTrip(portAgain, data)).isEqualTo(Payloads.summary(data));
    }

    private static ClientConfig client(TunnelServer server, String clientId, String proxy, int localPort) {
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.clientID = clientId;
        config.proxies.add(TunnelExtension.proxyConfig(proxy, localPort, 0));
        return config;
    }
}
