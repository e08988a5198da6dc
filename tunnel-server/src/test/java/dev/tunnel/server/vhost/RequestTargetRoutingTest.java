package dev.tunnel.server.vhost;

import static dev.tunnel.server.vhost.VhostHarness.received;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The request target as routing, authorization and the app see it, on both head paths (the scan
 * of plain heads and Netty's decoder): one proxy for {@code /}, one for {@code /admin} behind
 * Basic auth, on one domain.
 */
@Timeout(20)
class RequestTargetRoutingTest {
    static final String AUTH = "Authorization: Basic "
            + Base64.getEncoder().encodeToString("u:p".getBytes(StandardCharsets.UTF_8)) + "\r\n";
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    private final VhostHarness vhost = new VhostHarness();

    @AfterEach
    void close() {
        vhost.close();
    }

    private EmbeddedChannel connection(boolean scan) {
        vhost.scanPlainHeads = scan;
        vhost.http("a.example.com", "/", "public", 1);
        vhost.httpRoutes.add("a.example.com", "/admin", "", "admin", new HttpRoute(vhost.target("admin", 2), "u", "p", "",
                Map.of(), Map.of()));
        return vhost.newHttpConnection();
    }

    @ParameterizedTest(name = "scan {0}")
    @ValueSource(booleans = {true, false})
    void anotherSpellingOfAProtectedPathStillAsksForThePassword(boolean scan) {
        EmbeddedChannel ch = connection(scan);
        for (String target : new String[] {"/x/../admin/secret.txt", "/./admin/secret.txt", "//admin/secret.txt",
            "/%61dmin/secret.txt", "/%2E/admin/secret.txt", "/ADMIN/secret.txt", "/admin;v=1/secret.txt",
            "http://a.example.com/x/../admin/secret.txt", "HTTP://A.EXAMPLE.COM//%61dmin/secret.txt"}) {
            vhost.send(ch, "GET " + target + " HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
            assertThat(received(ch)).as(target).startsWith("HTTP/1.1 401 ");
            assertThat(ch.isActive()).as(target).isTrue();
        }
        assertThat(vhost.apps).as("no app got a request").isEmpty();
    }

    @ParameterizedTest(name = "scan {0}")
    @ValueSource(booleans = {true, false})
    void aPathAnAppCouldReadAnotherWayIs400(boolean scan) {
        for (String target : new String[] {"/../admin/secret.txt", "/x/%2e%2e/%2E%2E/admin", "/x%2F..%2Fadmin/secret.txt",
            "/x%2f..%2fadmin", "/x/..%5Cadmin", "/x\\..\\admin", "/public/..;/admin/secret.txt", "/;x/admin",
            "/admin%00.txt", "/a%zz", "/a%4", "/public#/../admin", "admin/secret.txt",
            "http://u:p@a.example.com/admin/secret.txt"}) {
            try (VhostHarness fresh = new VhostHarness()) {
                fresh.scanPlainHeads = scan;
                fresh.http("a.example.com", "/", "public", 1);
                fresh.httpRoutes.add("a.example.com", "/admin", "", "admin", new HttpRoute(fresh.target("admin", 2), "u",
                        "p", "", Map.of(), Map.of()));
                EmbeddedChannel ch = fresh.newHttpConnection();
                fresh.send(ch, "GET " + target + " HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
                assertThat(received(ch)).as(target).startsWith("HTTP/1.1 400 ");
                assertThat(ch.isActive()).as(target).isFalse();
                assertThat(fresh.apps).as(target).isEmpty();
            }
        }
    }

    @ParameterizedTest(name = "scan {0}")
    @ValueSource(booleans = {true, false})
    void theAppIsSentThePathRoutingSaw(boolean scan) {
        EmbeddedChannel ch = connection(scan);
        vhost.send(ch, "GET /x/.././/%61dmin/./files/%7Ea/b/../c%20d/?q=/../%2e&r=\u00e9 HTTP/1.1\r\nHost: a.example.com\r\n"
                + AUTH + "\r\n");
        assertThat(vhost.apps).hasSize(1);
        assertThat(vhost.apps.get(0).proxyId).isEqualTo(2);
        assertThat(vhost.apps.get(0).received.toString())
                .startsWith("GET /admin/files/~a/c%20d/?q=/../%2e&r=%E9 HTTP/1.1\r\n");
        vhost.apps.get(0).reply(OK);
        assertThat(received(ch)).isEqualTo(OK);
        vhost.send(ch, "GET /pub/./x/.. HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).hasSize(2);
        assertThat(vhost.apps.get(1).proxyId).isEqualTo(1);
        assertThat(vhost.apps.get(1).received.toString()).startsWith("GET /pub/ HTTP/1.1\r\n");
    }

    @ParameterizedTest(name = "scan {0}")
    @ValueSource(booleans = {true, false})
    void twoHostHeadersAre400(boolean scan) {
        EmbeddedChannel ch = connection(scan);
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\nHost: a.example.com\r\n\r\n");
        assertThat(received(ch)).startsWith("HTTP/1.1 400 ");
        assertThat(ch.isActive()).isFalse();
        assertThat(vhost.apps).isEmpty();
        EmbeddedChannel other = vhost.newHttpConnection();
        vhost.send(other, "GET /admin/ HTTP/1.1\r\nHost: b.example.com\r\nhost: a.example.com\r\n" + AUTH + "\r\n");
        assertThat(received(other)).startsWith("HTTP/1.1 400 ");
        assertThat(vhost.apps).isEmpty();
    }

    @ParameterizedTest(name = "scan {0}")
    @ValueSource(booleans = {true, false})
    void anAbsoluteTargetIsRoutedByItsAuthorityWhichTheAppGetsAsHost(boolean scan) {
        EmbeddedChannel ch = connection(scan);
        vhost.send(ch, "GET http://a.example.com:8080/admin/x?y HTTP/1.1\r\nHost: other.example\r\n" + AUTH + "\r\n");
        assertThat(vhost.apps).hasSize(1);
        String seen = vhost.apps.get(0).received.toString();
        assertThat(vhost.apps.get(0).proxyId).isEqualTo(2);
        assertThat(seen).startsWith("GET /admin/x?y HTTP/1.1\r\n").contains("Host: a.example.com:8080\r\n")
                .contains("X-Forwarded-Host: a.example.com:8080\r\n").doesNotContain("other.example");
        vhost.apps.get(0).reply(OK);
        vhost.send(ch, "GET http://a.example.com?q HTTP/1.1\r\n\r\n");
        assertThat(vhost.apps.get(1).received.toString()).startsWith("GET /?q HTTP/1.1\r\n")
                .contains("Host: a.example.com\r\n");
    }

    @ParameterizedTest(name = "scan {0}")
    @ValueSource(booleans = {true, false})
    void asteriskAndAuthorityFormsGoAsTheyCameAndAConnectWithAPathIsNormalized(boolean scan) {
        EmbeddedChannel ch = connection(scan);
        vhost.http("b.example.com", "", "any", 3);
        vhost.send(ch, "OPTIONS * HTTP/1.1\r\nHost: b.example.com\r\n\r\n");
        assertThat(vhost.apps.get(0).received.toString()).startsWith("OPTIONS * HTTP/1.1\r\n");
        vhost.apps.get(0).reply(OK);
        assertThat(received(ch)).isEqualTo(OK);
        vhost.send(ch, "CONNECT /x/../admin HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(received(ch)).startsWith("HTTP/1.1 401 ");
        EmbeddedChannel other = vhost.newHttpConnection();
        vhost.send(other, "CONNECT b.example.com:443 HTTP/1.1\r\nHost: b.example.com:443\r\n\r\n");
        assertThat(vhost.apps.get(vhost.apps.size() - 1).received.toString())
                .startsWith("CONNECT b.example.com:443 HTTP/1.1\r\n");
    }
}
