package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tunnel.client.ConfigReloader;
import dev.tunnel.client.TunnelClient;
import dev.tunnel.client.admin.AdminControl;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.runtime.Footprint;
import dev.tunnel.server.TunnelServer;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot reload of a client config file on a running client: what is untouched keeps every
 * connection, what changed serves again, an invalid file changes nothing. With
 * {@code RELOAD_REPORT=1} in the environment it prints how long the changed proxy took to serve again
 * (bench/reload.sh).
 */
@Timeout(120)
class HotReloadTest {
    private static final int PROXIES = 100;

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    @TempDir
    Path dir;

    private static String config(int serverPort, int basePort, int[] localPorts, List<String> extra) {
        StringBuilder toml = new StringBuilder("serverPort = " + serverPort + "\nauth.token = \"" + TunnelExtension.TOKEN
                + "\"\ntransport.tls.enable = true\ntransport.drainTimeout = 1\n");
        for (int i = 0; i < localPorts.length; i++) {
            if (localPorts[i] > 0) {
                toml.append("[[proxies]]\nname = \"p").append(i).append("\"\nlocalPort = ").append(localPorts[i])
                        .append("\nremotePort = ").append(basePort + i).append('\n');
            }
        }
        extra.forEach(toml::append);
        return toml.toString();
    }

    /** A connection through the tunnel kept open across the reload. */
    private static final class Held implements AutoCloseable {
        final Socket socket;

        Held(int port) throws Exception {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(10_000);
        }

        boolean echoes(String line) throws Exception {
            OutputStream out = socket.getOutputStream();
            out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            byte[] want = (line + "\n").getBytes(StandardCharsets.UTF_8);
            byte[] got = socket.getInputStream().readNBytes(want.length);
            return new String(got, StandardCharsets.UTF_8).equals(line + "\n");
        }

        @Override
        public void close() throws Exception {
            socket.close();
        }
    }

    private static boolean answers(int port) {
        try (Held h = new Held(port)) {
            return h.echoes("ping");
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void reloadWithOneChangedProxyKeepsTheOther99Connections() throws Exception {
        EchoServer before = tunnel.echoServer();
        EchoServer after = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        int base = FreePorts.range(PROXIES + 1);
        int[] local = new int[PROXIES];
        java.util.Arrays.fill(local, before.port());
        Path file = Files.writeString(dir.resolve("client.toml"), config(server.port(), base, local, List.of()));
        ClientConfig cfg = ClientConfig.load(file);
        TunnelClient client = tunnel.startClient(cfg);
        client.firstLogin().get(30, TimeUnit.SECONDS);
        for (int i = 0; i < PROXIES; i++) {
            client.awaitRemotePort("p" + i, Duration.ofSeconds(30));
        }
        List<Held> held = new ArrayList<>();
        for (int i = 1; i < PROXIES; i++) {
            held.add(tunnel.closeAfterTest(new Held(base + i)));
            assertThat(held.get(i - 1).echoes("before " + i)).isTrue();
        }
        assertThat(before.accepted()).isEqualTo(PROXIES - 1);
        ConfigReloader reloader = new ConfigReloader(client, cfg, file);
        // as tunnel-client does with its admin API on: hold the parser, then the collection after start-up
        reloader.keepParser();
        Footprint.afterStartup();

        local[0] = after.port();
        Files.writeString(file, config(server.port(), base, local, List.of()));
        long start = System.nanoTime();
        assertThat(reloader.reload()).isEqualTo("reloaded: 0 added, 0 removed, 1 changed (p0), 99 unchanged");
        long reloadMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(answers(base) && after.accepted() > 0)) {
            assertThat(System.nanoTime()).as("p0 serves again from its new local app").isLessThan(deadline);
            Thread.sleep(5);
        }
        long servingAgainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        for (int i = 1; i < PROXIES; i++) {
            assertThat(held.get(i - 1).echoes("after " + i)).as("connection on p" + i).isTrue();
        }
        assertThat(before.accepted()).as("no connection to the old app was reopened").isEqualTo(PROXIES - 1);
        if ("1".equals(System.getenv("RELOAD_REPORT"))) {
            System.out.println("reload of " + PROXIES + " proxies, 1 changed: reload() returned after " + reloadMillis
                    + " ms, the changed one served again after " + servingAgainMillis + " ms; " + (PROXIES - 1)
                    + " held connections still echo");
        }
    }

    @Test
    void reloadAddsAndRemovesWhileAnUntouchedConnectionKeepsEchoing() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        int base = FreePorts.range(3);
        Path file = Files.writeString(dir.resolve("client.toml"),
                config(server.port(), base, new int[] {echo.port(), echo.port()}, List.of()));
        ClientConfig cfg = ClientConfig.load(file);
        TunnelClient client = tunnel.startClient(cfg);
        client.firstLogin().get(30, TimeUnit.SECONDS);
        client.awaitRemotePort("p0", Duration.ofSeconds(30));
        client.awaitRemotePort("p1", Duration.ofSeconds(30));
        Held long0 = tunnel.closeAfterTest(new Held(base));
        assertThat(long0.echoes("one")).isTrue();
        ConfigReloader reloader = new ConfigReloader(client, cfg, file);

        Files.writeString(file, config(server.port(), base, new int[] {echo.port(), 0, echo.port()}, List.of()));
        assertThat(reloader.reload()).isEqualTo("reloaded: 1 added (p2), 1 removed (p1), 0 changed, 1 unchanged");
        await().atMost(Duration.ofSeconds(10)).until(() -> answers(base + 2));
        await().atMost(Duration.ofSeconds(10)).until(() -> !answers(base + 1));
        assertThat(long0.echoes("two")).isTrue();

        Files.writeString(file, "serverPort = 70000\n");
        assertThatReloadFails(reloader, "serverPort: 70000 (expected: 1-65535)");
        assertThat(answers(base + 2)).isTrue();
        assertThat(long0.echoes("three")).isTrue();
    }

    @Test
    void aProxyTheServerRefusesFailsTheReload() throws Exception {
        EchoServer echo = tunnel.echoServer();
        TunnelServer server = tunnel.startServer(TunnelExtension.serverConfig());
        int base = FreePorts.range(2);
        Path file = Files.writeString(dir.resolve("client.toml"), config(server.port(), base, new int[] {echo.port()}, List.of()));
        ClientConfig cfg = ClientConfig.load(file);
        TunnelClient client = tunnel.startClient(cfg);
        client.awaitRemotePort("p0", Duration.ofSeconds(30));
        ConfigReloader reloader = new ConfigReloader(client, cfg, file);
        try (java.net.ServerSocket taken = new java.net.ServerSocket(base + 1)) {
            Files.writeString(file, config(server.port(), base, new int[] {echo.port(), echo.port()}, List.of()));
            assertThatReloadFails(reloader, "the server refused proxy [p1] refused: ");
        }
    }

    private static void assertThatReloadFails(ConfigReloader reloader, String error) {
        org.assertj.core.api.Assertions.assertThatThrownBy(reloader::reload)
                .isInstanceOf(AdminControl.ReloadException.class).hasMessageContaining(error);
    }
}
