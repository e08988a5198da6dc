package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.server.ServerMain;
import dev.tunnel.server.TunnelServer;
import dev.tunnel.server.config.ServerConfig;
import dev.tunnel.server.plugin.FakePlugin;
import dev.tunnel.server.plugin.FakePlugin.Answer;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * frp's server plugins ({@code [[httpPlugins]]}) with a real server, a real client and a plugin
 * on 127.0.0.1: what a refusal looks like to the client, what a changed content does, and which
 * calls each op makes.
 */
@Timeout(90)
class HttpPluginsTest {
    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @Test
    void aLoginThePluginRejectsFailsOnTheClientWithThePluginsReason() throws Exception {
        FakePlugin plugin = plugin(c -> Answer.reject("invalid user"));
        TunnelServer server = tunnel.startServer(withPlugin("user-manager", plugin, "Login"));
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.user = "mallory";

        TunnelClient client = tunnel.startClient(config);

        assertThat(client.firstLogin()).failsWithin(Duration.ofSeconds(20)).withThrowableOfType(ExecutionException.class)
                .withMessageContaining("server plugin [user-manager] rejected Login: invalid user");
        assertThat(String.join("", CapturedLogs.snapshot()))
                .as("the client logs it").contains("login to server failed: server refused login: server plugin"
                        + " [user-manager] rejected Login: invalid user");
        FakePlugin.Call call = plugin.calls("Login").get(0);
        assertThat(call.content().get("user").asText()).isEqualTo("mallory");
        assertThat(call.content().get("run_id").asText()).isNotBlank();
        assertThat(call.content().get("client_address").asText()).startsWith("127.0.0.1:");
    }

    @Test
    void aProxyThePluginRejectsIsReportedByTheClientAndTheOthersRun() throws Exception {
        FakePlugin plugin = plugin(c -> c.content().path("remote_port").asInt() == 1
                ? Answer.reject("port 1 is not for you") : Answer.allow());
        TunnelServer server = tunnel.startServer(withPlugin("port-manager", plugin, "NewProxy"));
        EchoServer echo = tunnel.echoServer();
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.proxies.add(TunnelExtension.proxyConfig("blocked", echo.port(), 1));
        config.proxies.add(TunnelExtension.proxyConfig("ok", echo.port(), 0));
        TunnelClient client = tunnel.startClient(config);
        client.firstLogin().get(20, TimeUnit.SECONDS);

        int port = client.awaitRemotePort("ok", Duration.ofSeconds(20));
        assertThat(echo(port, "through")).isEqualTo("through");
        await().atMost(Duration.ofSeconds(20)).until(() -> client.proxy("blocked").isPresent());
        assertThat(client.proxy("blocked").orElseThrow().error())
                .isEqualTo("server plugin [port-manager] rejected NewProxy: port 1 is not for you");
        assertThat(String.join("", CapturedLogs.snapshot())).contains("proxy [blocked] start error: server plugin"
                + " [port-manager] rejected NewProxy: port 1 is not for you");
        assertThat(plugin.calls("NewProxy")).extracting(c -> c.content().get("proxy_name").asText())
                .containsExactlyInAnyOrder("blocked", "ok");
    }

    @Test
    void aPluginThatRenamesTheUserAndMovesThePortIsObeyed() throws Exception {
        int chosen = FreePorts.one();
        FakePlugin plugin = plugin(c -> switch (c.op()) {
            case "Login" -> Answer.replace("{\"user\": \"carol\", \"metas\": {\"tier\": \"gold\"}}");
            case "NewProxy" -> Answer.replace("{\"proxy_name\": \"carol.ssh\", \"proxy_type\": \"tcp\", \"remote_port\": "
                    + chosen + "}");
            default -> Answer.allow();
        });
        TunnelServer server = tunnel.startServer(withPlugin("fleet", plugin, "Login", "NewProxy", "CloseProxy", "Ping"));
        EchoServer echo = tunnel.echoServer();
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.proxies.add(TunnelExtension.proxyConfig("ssh", echo.port(), 0));
        TunnelClient client = tunnel.startClient(config);
        client.firstLogin().get(20, TimeUnit.SECONDS);

        assertThat(client.awaitRemotePort("ssh", Duration.ofSeconds(20))).isEqualTo(chosen);
        assertThat(echo(chosen, "moved")).isEqualTo("moved");
        assertThat(server.proxies()).singleElement().satisfies(p -> {
            assertThat(p.user()).isEqualTo("carol");
            assertThat(p.name()).isEqualTo("ssh");
        });
        FakePlugin.Call newProxy = plugin.calls("NewProxy").get(0);
        assertThat(newProxy.content().get("user").get("user").asText()).isEqualTo("carol");
        assertThat(newProxy.content().get("user").get("metas").get("tier").asText()).isEqualTo("gold");
        await().atMost(Duration.ofSeconds(20)).until(() -> !plugin.calls("Ping").isEmpty());
        assertThat(plugin.calls("Ping").get(0).content().get("user").get("user").asText()).isEqualTo("carol");

        client.close();
        await().atMost(Duration.ofSeconds(20)).until(() -> !plugin.calls("CloseProxy").isEmpty());
        assertThat(plugin.calls("CloseProxy").get(0).content().get("proxy_name").asText()).isEqualTo("carol.ssh");
    }

    @Test
    void newUserConnDecidesEachPublicConnection() throws Exception {
        FakePlugin plugin = plugin(c -> Answer.reject("not today"));
        TunnelServer server = tunnel.startServer(withPlugin("gate", plugin, "NewUserConn"));
        EchoServer echo = tunnel.echoServer();
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.proxies.add(TunnelExtension.proxyConfig("ssh", echo.port(), 0));
        TunnelClient client = tunnel.startClient(config);
        client.firstLogin().get(20, TimeUnit.SECONDS);
        int port = client.awaitRemotePort("ssh", Duration.ofSeconds(20));

        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write("refused".getBytes(StandardCharsets.US_ASCII));
            assertThat(readOrEof(s.getInputStream())).as("closed without an answer").isEqualTo(-1);
        }
        FakePlugin.Call call = plugin.calls("NewUserConn").get(0);
        assertThat(call.content().get("proxy_name").asText()).isEqualTo("ssh");
        assertThat(call.content().get("proxy_type").asText()).isEqualTo("tcp");
        assertThat(call.content().get("remote_addr").asText()).startsWith("127.0.0.1:");

        plugin.answers(c -> Answer.allow());
        assertThat(echo(port, "let in")).isEqualTo("let in");
    }

    @Test
    void poolModeWorkConnectionsAskNewWorkConn() throws Exception {
        FakePlugin plugin = plugin(c -> Answer.allow());
        ServerConfig serverConfig = withPlugin("pool-watch", plugin, "NewWorkConn");
        serverConfig.transport.tcpMux = false;
        TunnelServer server = tunnel.startServer(serverConfig);
        EchoServer echo = tunnel.echoServer();
        ClientConfig config = TunnelExtension.clientConfig(server, true);
        config.transport.tcpMux = false;
        config.proxies.add(TunnelExtension.proxyConfig("ssh", echo.port(), 0));
        TunnelClient client = tunnel.startClient(config);
        client.firstLogin().get(20, TimeUnit.SECONDS);
        int port = client.awaitRemotePort("ssh", Duration.ofSeconds(20));

        assertThat(echo(port, "pooled")).isEqualTo("pooled");
        FakePlugin.Call call = plugin.calls("NewWorkConn").get(0);
        assertThat(call.content().get("run_id").asText()).isNotBlank();
        assertThat(call.content().get("user").get("run_id").asText()).isEqualTo(call.content().get("run_id").asText());
    }

    @Test
    void verifyAcceptsTheHttpPluginsOfFrpsFullExample(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("frps.toml");
        Files.writeString(file, """
                bindPort = 7000

                [[httpPlugins]]
                name = "user-manager"
                addr = "127.0.0.1:9000"
                path = "/handler"
                ops = ["Login"]

                [[httpPlugins]]
                name = "port-manager"
                addr = "127.0.0.1:9001"
                path = "/handler"
                ops = ["NewProxy"]
                """);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.PrintStream stdout = System.out;
        java.io.PrintStream stderr = System.err;
        int code;
        try (java.io.PrintStream capture = new java.io.PrintStream(out, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            System.setErr(capture);
            code = new CommandLine(new ServerMain()).execute("verify", "-c", file.toString());
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        String said = out.toString(StandardCharsets.UTF_8);
        assertThat(said).doesNotContain("httpPlugins").contains("frps.toml: OK");
        assertThat(code).as(said).isZero();
    }

    private FakePlugin plugin(Function<FakePlugin.Call, Answer> answers) throws IOException {
        return tunnel.closeAfterTest(new FakePlugin(answers));
    }

    private static ServerConfig withPlugin(String name, FakePlugin plugin, String... ops) {
        ServerConfig config = TunnelExtension.serverConfig();
        ServerConfig.HttpPlugin p = new ServerConfig.HttpPlugin();
        p.name = name;
        p.addr = plugin.addr();
        p.path = "/handler";
        p.ops = List.of(ops);
        config.httpPlugins = List.of(p);
        return config;
    }

    private static String echo(int port, String text) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            byte[] out = text.getBytes(StandardCharsets.US_ASCII);
            s.getOutputStream().write(out);
            return new String(s.getInputStream().readNBytes(out.length), StandardCharsets.US_ASCII);
        }
    }

    private static int readOrEof(InputStream in) throws IOException {
        try {
            return in.read();
        } catch (java.net.SocketException e) {
            return -1; // reset: closed without an answer, too
        }
    }
}
