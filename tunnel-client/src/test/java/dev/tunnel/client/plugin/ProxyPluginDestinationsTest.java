package dev.tunnel.client.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.client.admin.AdminApi;
import dev.tunnel.client.admin.AdminControl;
import dev.tunnel.client.admin.IdleControl;
import dev.tunnel.client.config.PluginConfig;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.web.WebServer;
import dev.tunnel.web.WebSettings;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A visitor of an {@code http_proxy} or {@code socks5} plugin, with real proxy clients (the JDK's
 * HTTP client, {@link Socket} through a SOCKS proxy) against the client's real admin API on
 * loopback, as frpc runs it by default (no credentials): the API and every loopback service stay
 * out of reach, a destination listed in {@code allowDestinations} is reached.
 */
@Timeout(30)
class ProxyPluginDestinationsTest {
    private static final String TOKEN = "the-secret-token";
    private static EventLoopGroup group;

    @TempDir
    Path dir;
    private WebServer admin;
    private final AtomicInteger reloads = new AtomicInteger();
    private LocalPlugin plugin;
    private Targets echo;

    @BeforeAll
    static void startGroup() {
        group = Transports.newGroup(1, "destinations-test");
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @BeforeEach
    void startAdminApi() throws Exception {
        Path file = Files.writeString(dir.resolve("client.toml"), "auth.token = \"" + TOKEN + "\"\n");
        AdminControl control = new IdleControl();
        admin = WebServer.start(new WebSettings("127.0.0.1", 0, "", "", null, null),
                new AdminApi(control, () -> "reloaded " + reloads.incrementAndGet(), file, toml -> null).routes(),
                group, Transports.serverChannel(), "admin API");
        echo = Targets.echo();
    }

    @AfterEach
    void stop() throws IOException {
        if (plugin != null) {
            plugin.close();
        }
        admin.close();
        echo.close();
    }

    private InetSocketAddress start(String type, String... allowDestinations) throws InterruptedException {
        PluginConfig config = new PluginConfig();
        config.type = type;
        config.allowDestinations = List.of(allowDestinations);
        plugin = LocalPlugins.start(config, group, 5000);
        return ((LoopbackServer) plugin).localAddress();
    }

    private static HttpClient through(InetSocketAddress proxy) {
        return HttpClient.newBuilder().proxy(ProxySelector.of(proxy)).connectTimeout(Duration.ofSeconds(5)).build();
    }

    private HttpResponse<String> send(HttpClient http, String method, String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void httpProxyDoesNotReachTheAdminApiOnLoopback() throws Exception {
        HttpClient http = through(start("http_proxy"));
        String api = "http://127.0.0.1:" + admin.port();
        HttpResponse<String> config = send(http, "GET", api + "/api/config");
        assertThat(config.statusCode()).isEqualTo(403);
        assertThat(config.body()).doesNotContain(TOKEN)
                .contains("127.0.0.1:" + admin.port() + " is a loopback address (list it in allowDestinations");
        assertThat(send(http, "POST", api + "/api/reload").statusCode()).isEqualTo(403);
        assertThat(send(http, "GET", api + "/api/reload").statusCode()).isEqualTo(403);
        assertThat(reloads).hasValue(0);
        // the same API asked for directly still answers: the refusal is the proxy's
        assertThat(send(HttpClient.newHttpClient(), "GET", api + "/api/config").body()).contains(TOKEN);
    }

    @Test
    void httpProxyChecksTheAddressANameResolvesToAndEveryLoopbackSpelling() throws Exception {
        InetSocketAddress proxy = start("http_proxy");
        for (String host : List.of("localhost", "127.0.0.1", "127.1.2.3", "[::1]", "[::ffff:127.0.0.1]", "0.0.0.0")) {
            String answer = rawRequest(proxy, "CONNECT " + host + ":" + admin.port() + " HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(answer).as(host).startsWith("HTTP/1.1 403 Forbidden\r\n").doesNotContain("200 Connection");
        }
        assertThat(rawRequest(proxy, "GET http://localhost:" + admin.port() + "/api/config HTTP/1.1\r\nHost: localhost\r\n\r\n"))
                .startsWith("HTTP/1.1 403 ").doesNotContain(TOKEN);
    }

    @Test
    void httpProxyReachesAnAllowedDestinationButNotTheRest() throws Exception {
        InetSocketAddress proxy = start("http_proxy", "127.0.0.1:" + echo.port());
        try (Socket s = new Socket()) {
            s.connect(proxy, 5000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("CONNECT 127.0.0.1:" + echo.port() + " HTTP/1.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(Targets.readHead(s.getInputStream())).startsWith("HTTP/1.1 200 Connection established");
            Targets.assertEchoes(s, 256 * 1024 + 3, 11);
        }
        assertThat(send(through(proxy), "GET", "http://127.0.0.1:" + admin.port() + "/api/config").statusCode())
                .isEqualTo(403);
    }

    @Test
    void socks5DoesNotReachTheAdminApiButReachesAnAllowedDestination() throws Exception {
        InetSocketAddress proxy = start("socks5", "127.0.0.1:" + echo.port());
        try (Socket s = new Socket(new Proxy(Proxy.Type.SOCKS, proxy))) {
            assertThatThrownBy(() -> s.connect(new InetSocketAddress("127.0.0.1", admin.port()), 5000))
                    .isInstanceOf(SocketException.class).hasMessageContaining("not allowed by ruleset");
        }
        try (Socket s = new Socket(new Proxy(Proxy.Type.SOCKS, proxy))) {
            s.connect(new InetSocketAddress("127.0.0.1", echo.port()), 5000);
            s.setSoTimeout(10_000);
            Targets.assertEchoes(s, 256 * 1024 + 5, 13);
        }
    }

    @Test
    void socks5WithoutAnAllowlistRefusesLoopbackByNameToo() throws Exception {
        InetSocketAddress proxy = start("socks5");
        for (InetSocketAddress target : List.of(InetSocketAddress.createUnresolved("localhost", admin.port()),
                new InetSocketAddress("127.0.0.1", echo.port()))) {
            try (Socket s = new Socket(new Proxy(Proxy.Type.SOCKS, proxy))) {
                assertThatThrownBy(() -> s.connect(target, 5000)).as(target.toString())
                        .isInstanceOf(SocketException.class).hasMessageContaining("not allowed by ruleset");
            }
        }
    }

    /** One request on a fresh connection; everything the proxy sends until it closes. */
    private static String rawRequest(InetSocketAddress proxy, String request) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(proxy, 5000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
