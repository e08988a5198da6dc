package dev.tunnel.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.admin.AdminApi;
import dev.tunnel.client.admin.AdminControl;
import dev.tunnel.client.admin.IdleControl;
import dev.tunnel.protocol.transport.Transports;
import dev.tunnel.web.WebServer;
import dev.tunnel.web.WebSettings;
import io.netty.channel.EventLoopGroup;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code PUT /api/config} with a hostile file, checked as the client checks it: an answer, never a dropped request. */
@Timeout(30)
class AdminConfigLimitsTest {
    private static final String VALID = "serverAddr = \"127.0.0.1\"\nauth.token = \"x\"\n";

    @TempDir
    Path dir;
    private Path file;
    private EventLoopGroup group;
    private WebServer web;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws Exception {
        file = Files.writeString(dir.resolve("client.toml"), VALID);
        AdminControl control = new IdleControl();
        group = Transports.newGroup(1, "admin-limits-test");
        web = WebServer.start(new WebSettings("127.0.0.1", 0, "", "", null, null),
                new AdminApi(control, null, file, ClientAdmin::check).routes(), group, Transports.serverChannel(),
                "admin API");
    }

    @AfterEach
    void stop() {
        web.close();
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private HttpResponse<String> put(String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + web.port() + "/api/config"))
                .timeout(Duration.ofSeconds(10)).PUT(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aConfigNestedFiveThousandDeepGets400WithTheLimitAndTheFileStays() throws Exception {
        HttpResponse<String> res = put(VALID + "x = " + "[".repeat(5000) + "]".repeat(5000) + "\n");
        assertThat(res.statusCode()).isEqualTo(400);
        assertThat(res.body()).startsWith("config refused, file unchanged:\n")
                .contains("request body:3: values nested 5001 levels deep, over the limit of 32");
        assertThat(Files.readString(file)).isEqualTo(VALID);
    }

    @Test
    void aBodyOverOneMebibyteGets413AndTheFileStays() throws Exception {
        HttpResponse<String> res = put(VALID + ("#" + "x".repeat(1023) + "\n").repeat(1100));
        assertThat(res.statusCode()).isEqualTo(413);
        assertThat(Files.readString(file)).isEqualTo(VALID);
    }
}
