package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a client says about itself reaches the server's API under frp's names ({@code clientID},
 * {@code metas}, {@code conf.metadatas}, {@code conf.annotations}, {@code conf.loadBalancer});
 * {@code transport.connectServerLocalIP} sets the address the server sees; and
 * {@code detailedErrorsToClient = false} hides the server's reasons from clients.
 */
@Timeout(60)
class ClientLabelsTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void clientIdMetadatasAndAnnotationsShowInTheServersApi() throws Exception {
        int webPort = FreePorts.one();
        EchoServer echo = tunnel.echoServer();
        ServerConfig serverConfig = TunnelExtension.serverConfig();
        serverConfig.webServer.port = webPort;
        TunnelServer server = tunnel.startServer(serverConfig);
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.clientID = "nas-1";
        config.metadatas.put("site", "home");
        config.transport.connectServerLocalIP = "127.0.0.2";
        ProxyConfig proxy = TunnelExtension.proxyConfig("ssh", echo.port(), 0);
        proxy.metadatas.put("owner", "ops");
        proxy.annotations.put("prefix/key2", "value2");
        proxy.loadBalancer.group = "g";
        proxy.loadBalancer.groupKey = "secret-key";
        config.proxies.add(proxy);
        TunnelClient client = tunnel.startClient(config);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        client.awaitRemotePort("ssh", Duration.ofSeconds(10));

        JsonNode c = json(webPort, "/api/clients?clientId=nas-1").get(0);
        assertThat(c.get("clientID").asText()).isEqualTo("nas-1");
        assertThat(c.get("metas").get("site").asText()).isEqualTo("home");
        assertThat(c.get("clientIP").asText()).as("connectServerLocalIP").isEqualTo("127.0.0.2");

        JsonNode conf = json(webPort, "/api/proxy/tcp/ssh").get("conf");
        assertThat(conf.get("metadatas").get("owner").asText()).isEqualTo("ops");
        assertThat(conf.get("annotations").get("prefix/key2").asText()).isEqualTo("value2");
        assertThat(conf.get("loadBalancer").get("group").asText()).isEqualTo("g");
        assertThat(conf.toString()).as("the group key is a secret").doesNotContain("secret-key");
        assertThat(json(webPort, "/api/proxy/tcp/ssh").get("clientID").asText()).isEqualTo("nas-1");
    }

    @Test
    void withoutDetailedErrorsClientsGetFrpsGenericRefusals() throws Exception {
        ServerConfig serverConfig = TunnelExtension.serverConfig();
        serverConfig.detailedErrorsToClient = false;
        serverConfig.allowPorts = java.util.List.of(new dev.tunnel.server.config.PortRange(20000, 20010, 0));
        TunnelServer server = tunnel.startServer(serverConfig);
        EchoServer echo = tunnel.echoServer();
        ClientConfig config = TunnelExtension.clientConfig(server, false);
        config.proxies.add(TunnelExtension.proxyConfig("ssh", echo.port(), 30001));
        TunnelClient client = tunnel.startClient(config);
        client.firstLogin().get(10, TimeUnit.SECONDS);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> client.proxy("ssh").isPresent());
        assertThat(client.proxy("ssh").orElseThrow().error()).isEqualTo("new proxy [ssh] error");

        ClientConfig wrong = TunnelExtension.clientConfig(server, false);
        wrong.auth.token = "not-the-token";
        TunnelClient refused = tunnel.startClient(wrong);
        assertThat(refused.firstLogin()).failsWithin(Duration.ofSeconds(20)).withThrowableOfType(ExecutionException.class)
                .withMessageContaining("register control error")
                .withMessageNotContaining("authorization failed");
    }

    private JsonNode json(int port, String path) throws Exception {
        HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).as(path).isEqualTo(200);
        return new ObjectMapper().readTree(res.body());
    }
}
