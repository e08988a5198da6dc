package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.e2e.TunnelExtension.Mode;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Stopping a client says goodbye (its port is free at once) and lets a connection in flight
 * finish within transport.drainTimeout; stopping a server does the same for public connections.
 */
@Timeout(60)
class GracefulShutdownTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void clientStopReleasesItsPortAtOnceAndDrainsConnectionsInFlight(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        int remotePort = FreePorts.one();
        ServerConfig sc = TunnelExtension.serverConfig();
        mode.apply(sc);
        TunnelServer server = tunnel.startServer(sc);
        ClientConfig cc = TunnelExtension.clientConfig(server, true);
        mode.apply(cc);
        cc.transport.drainTimeout = 10;
        cc.proxies.add(TunnelExtension.proxyConfig("echo", echo.port(), remotePort));
        TunnelClient client = TunnelClient.start(cc);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        client.awaitRemotePort("echo", Duration.ofSeconds(10));

        try (Socket inFlight = new Socket("127.0.0.1", remotePort)) {
            OutputStream out = inFlight.getOutputStream();
            InputStream in = inFlight.getInputStream();
            out.write("before".getBytes());
            assertThat(in.readNBytes(6)).isEqualTo("before".getBytes());

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(client::close);
            await("the port is released while the client drains").atMost(Duration.ofSeconds(5))
                    .until(() -> FreePorts.canBind(remotePort));
            assertThat(stopping).isNotDone();

            out.write("after".getBytes());
            inFlight.shutdownOutput();
            assertThat(new String(in.readAllBytes())).as("the connection in flight finishes").isEqualTo("after");
            stopping.get(10, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void serverStopDrainsPublicConnectionsInFlight(Mode mode) throws Exception {
        EchoServer echo = tunnel.echoServer();
        ServerConfig sc = TunnelExtension.serverConfig();
        mode.apply(sc);
        sc.transport.drainTimeout = 10;
        TunnelServer server = TunnelServer.start(sc);
        TunnelExtension.Tunnel t = tunnel.builder().mode(mode).existingServer(server).proxy("echo", echo.port())
                .start();
        int port = t.port("echo");
        try (Socket inFlight = new Socket("127.0.0.1", port)) {
            OutputStream out = inFlight.getOutputStream();
            InputStream in = inFlight.getInputStream();
            out.write("before".getBytes());
            assertThat(in.readNBytes(6)).isEqualTo("before".getBytes());

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(server::close);
            await("the public port stops accepting").atMost(Duration.ofSeconds(5)).until(() -> FreePorts.canBind(port));
            out.write("after".getBytes());
            inFlight.shutdownOutput();
            assertThat(new String(in.readAllBytes())).isEqualTo("after");
            stopping.get(10, TimeUnit.SECONDS);
        }
    }
}
