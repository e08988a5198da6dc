package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.proxy.ClientProxyTypes;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.server.TunnelServer;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Several clients on the caller's event loops (as a load driver runs them): each logs in and
 * carries its proxy, and closing one leaves the loops, and the others, running.
 */
@Timeout(60)
class SharedEventLoopsTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void clientsOnSharedLoopsServeAndOneClosingLeavesTheOthersRunning() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        EventLoopGroup loops = Transports.newGroup(1, "shared-test");
        tunnel.closeAfterTest(() -> loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
        int[] ports = {FreePorts.one(), FreePorts.one()};
        TunnelClient[] clients = new TunnelClient[2];
        for (int i = 0; i < 2; i++) {
            ClientConfig cc = TunnelExtension.clientConfig(server, true);
            cc.proxies.add(TunnelExtension.proxyConfig("echo" + i, echo.port(), ports[i]));
            clients[i] = tunnel.closeAfterTest(TunnelClient.start(cc, ClientProxyTypes.standard(), loops));
            clients[i].awaitRemotePort("echo" + i, Duration.ofSeconds(10));
        }
        assertThat(PublicConn.echoes("127.0.0.1", ports[0])).isTrue();
        assertThat(PublicConn.echoes("127.0.0.1", ports[1])).isTrue();

        clients[0].close();
        assertThat(loops.isShuttingDown()).as("the caller's loops are the caller's to stop").isFalse();
        assertThat(PublicConn.echoes("127.0.0.1", ports[1])).isTrue();
    }
}
