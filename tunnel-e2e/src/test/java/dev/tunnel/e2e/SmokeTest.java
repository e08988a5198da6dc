package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class SmokeTest {
    @Test
    void echoThroughTunnel() throws Exception {
        try (EchoServer echo = new EchoServer()) {
            ServerConfig sc = new ServerConfig();
            sc.bindAddr = "127.0.0.1";
            sc.bindPort = 0;
            sc.auth.token = "t";
            try (TunnelServer server = TunnelServer.start(sc)) {
                ClientConfig cc = new ClientConfig();
                cc.serverPort = server.port();
                cc.auth.token = "t";
                cc.transport.tls.enable = false;
                ProxyConfig p = new ProxyConfig();
                p.name = "echo";
                p.localPort = echo.port();
                cc.proxies.add(p);
                try (TunnelClient client = TunnelClient.start(cc)) {
                    client.firstLogin().get(10, TimeUnit.SECONDS);
                    int port = client.awaitRemotePort("echo", Duration.ofSeconds(10));
                    try (Socket s = new Socket("127.0.0.1", port)) {
                        OutputStream out = s.getOutputStream();
                        out.write("hello".getBytes(StandardCharsets.UTF_8));
                        s.shutdownOutput();
                        InputStream in = s.getInputStream();
                        assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("hello");
                    }
                }
            }
        }
    }
}
