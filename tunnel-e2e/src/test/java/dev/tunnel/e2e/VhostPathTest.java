package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.config.ProxyConfig;
import dev.tunnel.server.config.ServerConfig;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The request target end to end, as an attacker spells it: one local app behind two http proxies
 * of one domain, {@code /} open and {@code /admin} behind {@code httpUser}/{@code httpPassword}.
 * Every other spelling of {@code /admin/...} asks for the password too (or is refused), and the
 * app is sent the path routing saw. Two Host headers are refused; an absolute-form target gives
 * the app its authority as Host.
 */
@Timeout(60)
class VhostPathTest {
    private static final String HOST = "site.example.test";
    private static final String AUTH = "Authorization: Basic "
            + Base64.getEncoder().encodeToString("admin:s3cret".getBytes(StandardCharsets.UTF_8));

    @RegisterExtension
    final TunnelExtension tunnel = new TunnelExtension();

    private final int vhostPort = FreePorts.one();

    @BeforeEach
    void start() throws Exception {
        WebApp site = tunnel.closeAfterTest(new WebApp("site"));
        ProxyConfig open = VhostTest.http("public", site.port(), HOST);
        open.locations = List.of("/");
        open.requestHeaders.set.put("x-from-where", "public");
        ProxyConfig admin = VhostTest.http("admin", site.port(), HOST);
        admin.locations = List.of("/admin");
        admin.httpUser = "admin";
        admin.httpPassword = "s3cret";
        admin.requestHeaders.set.put("x-from-where", "admin");
        TunnelExtension.Tunnel t = tunnel.builder().server((ServerConfig config) -> config.vhostHTTPPort = vhostPort)
                .client(c -> {
                    c.proxies.add(open);
                    c.proxies.add(admin);
                }).start();
        assertThat(t.error("public")).isEmpty();
        assertThat(t.error("admin")).isEmpty();
    }

    @Test
    void everySpellingOfTheProtectedPathAsksForThePassword() throws Exception {
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get(HOST, "/admin/secret.txt").status()).isEqualTo(401);
            for (String target : new String[] {"/x/../admin/secret.txt", "/./admin/secret.txt", "//admin/secret.txt",
                "/%61dmin/secret.txt", "/Admin/secret.txt", "/admin;x/secret.txt",
                "http://" + HOST + "/x/../admin/secret.txt"}) {
                assertThat(conn.get(HOST, target).status()).as(target).isEqualTo(401);
            }
            assertThat(conn.get(HOST, "/index.html").text()).as("the open location still answers")
                    .startsWith("app=site path=/index.html ").contains(" from=public ");
        }
    }

    @Test
    void aPathAnAppCouldReadAnotherWayIsRefused() throws Exception {
        for (String target : new String[] {"/../admin/secret.txt", "/x/%2e%2e/%2e%2e/admin/secret.txt",
            "/x%2F..%2Fadmin/secret.txt", "/x/..%5Cadmin/secret.txt", "/public/..;/admin/secret.txt",
            "/public#/../admin/secret.txt"}) {
            try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
                assertThat(conn.get(HOST, target).status()).as(target).isEqualTo(400);
                assertThat(conn.closedByServer()).as(target).isTrue();
            }
        }
    }

    @Test
    void withThePasswordTheAppIsSentTheNormalizedPath() throws Exception {
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get(HOST, "/admin/secret.txt", AUTH).text()).startsWith("app=site path=/admin/secret.txt ")
                    .contains(" from=admin ").endsWith(" target=/admin/secret.txt");
            assertThat(conn.get(HOST, "/x/../%61dmin//./secret.txt?a=/../b", AUTH).text())
                    .startsWith("app=site path=/admin/secret.txt ").contains(" from=admin ")
                    .endsWith(" target=/admin/secret.txt?a=/../b");
        }
    }

    @Test
    void twoHostHeadersAreRefused() throws Exception {
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            assertThat(conn.get(HOST, "/", "Host: " + HOST).status()).isEqualTo(400);
            assertThat(conn.closedByServer()).isTrue();
        }
    }

    @Test
    void anAbsoluteTargetGivesTheAppItsAuthorityAsHost() throws Exception {
        try (HttpClientConn conn = new HttpClientConn(vhostPort)) {
            conn.send(("GET http://" + HOST + "/admin/page?q HTTP/1.1\r\nHost: other.example.test\r\n" + AUTH
                    + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            HttpClientConn.Response r = conn.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).startsWith("app=site path=/admin/page host=" + HOST + " ")
                    .contains(" xfh=" + HOST + " ").contains(" from=admin ").endsWith(" target=/admin/page?q")
                    .doesNotContain("other.example.test");
        }
    }
}
