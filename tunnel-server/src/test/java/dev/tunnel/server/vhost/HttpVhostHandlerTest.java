package dev.tunnel.server.vhost;

import static dev.tunnel.server.vhost.VhostHarness.received;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.ResetCode;
import dev.tunnel.protocol.testing.Fuzz;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class HttpVhostHandlerTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    private final VhostHarness vhost = new VhostHarness();

    @AfterEach
    void close() {
        vhost.close();
    }

    @Test
    void aRequestGoesToTheProxyOfItsHostWithForwardingHeaders() {
        vhost.http("app.example.com", "", "web", 7);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET /index.html?q=1 HTTP/1.1\r\nHost: App.Example.com:8080\r\nX-Forwarded-For: 10.0.0.1\r\n\r\n");
        assertThat(vhost.apps).hasSize(1);
        VhostHarness.App app = vhost.apps.get(0);
        assertThat(app.proxyId).isEqualTo(7);
        assertThat(app.received.toString())
                .startsWith("GET /index.html?q=1 HTTP/1.1\r\n")
                .contains("X-Forwarded-For: 10.0.0.1, embedded\r\n")
                .contains("X-Forwarded-Host: App.Example.com:8080\r\n")
                .contains("X-Forwarded-Proto: http\r\n")
                .contains("X-Real-IP: embedded\r\n");
        app.reply(OK);
        assertThat(received(ch)).isEqualTo(OK);
        assertThat(ch.isActive()).isTrue();
    }

    @Test
    void successiveRequestsOfOneConnectionGoToDifferentProxiesAndBack() {
        vhost.http("a.example.com", "", "a", 1);
        vhost.http("b.example.com", "", "b", 2);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET /1 HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        vhost.apps.get(0).reply(OK);
        vhost.send(ch, "GET /2 HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).as("same proxy: the stream is kept").hasSize(1);
        vhost.apps.get(0).reply(OK);
        vhost.send(ch, "GET /3 HTTP/1.1\r\nHost: b.example.com\r\n\r\n");
        assertThat(vhost.apps).hasSize(2);
        assertThat(vhost.apps.get(0).fin).as("the stream to a is parked, not ended").isFalse();
        assertThat(vhost.apps.get(1).proxyId).isEqualTo(2);
        assertThat(vhost.apps.get(1).received.toString()).startsWith("GET /3 ");
        vhost.apps.get(1).reply(OK);
        vhost.send(ch, "GET /4 HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).as("a's idle stream is taken back").hasSize(2);
        assertThat(vhost.apps.get(0).received.toString()).contains("GET /4 ");
        vhost.apps.get(0).reply(OK);
        assertThat(received(ch)).isEqualTo(OK.repeat(4));
    }

    @Test
    void pipelinedRequestsWaitForTheResponseBeforeThem() {
        vhost.http("a.example.com", "", "a", 1);
        vhost.http("b.example.com", "", "b", 2);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET /1 HTTP/1.1\r\nHost: a.example.com\r\n\r\nGET /2 HTTP/1.1\r\nHost: b.example.com\r\n\r\n");
        assertThat(vhost.apps).hasSize(1);
        vhost.apps.get(0).reply(OK);
        assertThat(vhost.apps).hasSize(2);
        vhost.apps.get(1).reply("HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(received(ch)).isEqualTo(OK + "HTTP/1.1 204 No Content\r\n\r\n");
    }

    @Test
    void chunkedBodiesPassThroughBothWays() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "POST /up HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
        vhost.send(ch, "6\r\n world\r\n0\r\n\r\n");
        assertThat(vhost.apps.get(0).received.toString()).endsWith("\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
        vhost.apps.get(0).reply("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
        vhost.apps.get(0).reply("0\r\n\r\n");
        assertThat(received(ch)).isEqualTo("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
    }

    @Test
    void theLongestLocationChoosesTheProxy() {
        vhost.http("a.example.com", "", "site", 1);
        vhost.http("a.example.com", "/api", "api", 2);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET /api/users HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps.get(0).proxyId).isEqualTo(2);
    }

    @Test
    void anUnknownHostGets404AndTheConnectionStaysUsable() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: nobody.example.org\r\n\r\n");
        assertThat(received(ch)).startsWith("HTTP/1.1 404 Not Found\r\n").contains("No web site is served");
        assertThat(vhost.settings.counters().notFound.get()).isEqualTo(1);
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).hasSize(1);
    }

    @Test
    void aCustom404PageIsServed() {
        try (VhostHarness custom = new VhostHarness(new ErrorPages("<p>gone fishing</p>".getBytes(StandardCharsets.UTF_8)), 60)) {
            EmbeddedChannel ch = custom.newHttpConnection();
            custom.send(ch, "GET / HTTP/1.1\r\nHost: x.example.org\r\n\r\n");
            assertThat(received(ch)).startsWith("HTTP/1.1 404 ").endsWith("\r\n\r\n<p>gone fishing</p>");
        }
    }

    @Test
    void aMissingHostIs400AndCloses() {
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.0\r\n\r\n");
        assertThat(received(ch)).startsWith("HTTP/1.1 400 Bad Request\r\n").contains("no Host header");
        assertThat(ch.isActive()).isFalse();
    }

    @Test
    void malformedAndOversizedHeadsAre400And431() {
        EmbeddedChannel bad = vhost.newHttpConnection();
        vhost.send(bad, "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n");
        assertThat(received(bad)).startsWith("HTTP/1.1 400 ");
        assertThat(bad.isActive()).isFalse();

        EmbeddedChannel big = vhost.newHttpConnection();
        vhost.send(big, "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + "x".repeat(VhostSettings.MAX_REQUEST_HEADERS) + "\r\n\r\n");
        assertThat(received(big)).startsWith("HTTP/1.1 431 ");
        assertThat(big.isActive()).isFalse();

        EmbeddedChannel longLine = vhost.newHttpConnection();
        vhost.send(longLine, "GET /" + "a".repeat(VhostSettings.MAX_REQUEST_LINE) + " HTTP/1.1\r\n\r\n");
        assertThat(received(longLine)).startsWith("HTTP/1.1 414 ");
        assertThat(vhost.settings.counters().badRequests.get()).isEqualTo(3);
    }

    @Test
    void basicAuthIsCheckedOnTheServer() {
        VhostTarget t = vhost.target("private", 3);
        vhost.httpRoutes.add("p.example.com", "", "", "private", new HttpRoute(t, "admin", "pw", "", Map.of(), Map.of()));
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: p.example.com\r\n\r\n");
        assertThat(received(ch)).startsWith("HTTP/1.1 401 Unauthorized\r\n").contains("WWW-Authenticate: Basic realm=\"Restricted\"");
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: p.example.com\r\nAuthorization: " + basic("admin", "wrong") + "\r\n\r\n");
        assertThat(received(ch)).startsWith("HTTP/1.1 401 ");
        assertThat(vhost.apps).isEmpty();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: p.example.com\r\nAuthorization: " + basic("admin", "pw") + "\r\n\r\n");
        assertThat(vhost.apps).hasSize(1);
    }

    @Test
    void routeByHttpUserPicksTheProxyOfTheUser() {
        vhost.http("a.example.com", "", "everyone", 1);
        VhostTarget alice = vhost.target("alice", 2);
        vhost.httpRoutes.add("a.example.com", "", "alice", "alice", new HttpRoute(alice, "", "", "", Map.of(), Map.of()));
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\nAuthorization: " + basic("alice", "x") + "\r\n\r\n");
        assertThat(vhost.apps.get(0).proxyId).isEqualTo(2);
    }

    @Test
    void hostAndHeadersAreRewrittenBothWays() {
        VhostTarget t = vhost.target("rw", 4);
        vhost.httpRoutes.add("a.example.com", "", "", "rw", new HttpRoute(t, "", "", "internal.local",
                Map.of("x-from-where", "tunnel"), Map.of("foo", "bar")));
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\nX-From-Where: visitor\r\n\r\n");
        String request = vhost.apps.get(0).received.toString();
        assertThat(request).contains("Host: internal.local\r\n").contains("x-from-where: tunnel\r\n")
                .doesNotContain("visitor").contains("X-Forwarded-Host: a.example.com\r\n");
        vhost.apps.get(0).reply(OK);
        assertThat(received(ch)).contains("foo: bar\r\n");
    }

    @Test
    void aRefusedLocalAppIs502() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        vhost.apps.get(0).stream.reset(ResetCode.CONNECT_FAILED);
        vhost.shuttle();
        assertThat(received(ch)).startsWith("HTTP/1.1 502 Bad Gateway\r\n");
        assertThat(vhost.settings.counters().badGateway.get()).isEqualTo(1);
    }

    @Test
    void anAppThatClosesWithoutAnsweringIs502() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        vhost.apps.get(0).finish();
        assertThat(received(ch)).startsWith("HTTP/1.1 502 ");
    }

    @Test
    void aResponseDelimitedByCloseEndsTheConnection() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        vhost.apps.get(0).reply("HTTP/1.1 200 OK\r\n\r\nall of it");
        vhost.apps.get(0).finish();
        assertThat(received(ch)).isEqualTo("HTTP/1.1 200 OK\r\n\r\nall of it");
        assertThat(ch.isActive()).isFalse();
    }

    @Test
    void anAppThatClosesAKeptAliveStreamGetsANewOneForTheNextRequest() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        vhost.apps.get(0).reply(OK);
        vhost.apps.get(0).finish();
        vhost.send(ch, "GET /2 HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).hasSize(2);
        assertThat(vhost.apps.get(1).received.toString()).startsWith("GET /2 ");
    }

    @Test
    void expectContinueIsForwardedAndAnswered() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "PUT /f HTTP/1.1\r\nHost: a.example.com\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
        assertThat(vhost.apps.get(0).received.toString()).contains("Expect: 100-continue");
        vhost.apps.get(0).reply("HTTP/1.1 100 Continue\r\n\r\n");
        assertThat(received(ch)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
        vhost.send(ch, "data");
        assertThat(vhost.apps.get(0).received.toString()).endsWith("\r\n\r\ndata");
        vhost.apps.get(0).reply("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
        assertThat(received(ch)).isEqualTo("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n");
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).hasSize(1);
        assertThat(vhost.apps.get(0).received.toString()).contains("data" + "GET / HTTP/1.1\r\n");
    }

    @Test
    void aHeadResponseHasNoBodyToWaitFor() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "HEAD / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        vhost.apps.get(0).reply("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n");
        vhost.send(ch, "GET /next HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps.get(0).received.toString()).contains("GET /next ");
    }

    @Test
    void anUpgradeSwitchesToRawBytesBothWays() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET /ws HTTP/1.1\r\nHost: a.example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
        assertThat(vhost.apps.get(0).received.toString()).contains("Upgrade: websocket");
        vhost.apps.get(0).reply("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n\u0081\u0002hi");
        assertThat(received(ch)).isEqualTo("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n\u0081\u0002hi");
        vhost.send(ch, "\u0081\u0003raw not http");
        assertThat(vhost.apps.get(0).received.toString()).endsWith("\r\n\r\n\u0081\u0003raw not http");
        vhost.apps.get(0).reply("GET / HTTP/1.1\r\n");
        assertThat(received(ch)).isEqualTo("GET / HTTP/1.1\r\n");
    }

    @Test
    void noResponseWithinTheTimeoutIs504() {
        try (VhostHarness slow = new VhostHarness(new ErrorPages(null), 1)) {
            slow.http("a.example.com", "", "a", 1);
            EmbeddedChannel ch = slow.newHttpConnection();
            slow.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
            ch.advanceTimeBy(999, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            assertThat(received(ch)).isEmpty();
            ch.advanceTimeBy(2, TimeUnit.MILLISECONDS);
            ch.runScheduledPendingTasks();
            assertThat(received(ch)).startsWith("HTTP/1.1 504 Gateway Timeout\r\n");
            assertThat(ch.isActive()).isFalse();
            slow.shuttle();
            assertThat(slow.apps.get(0).reset).isTrue();
        }
    }

    @Test
    void aHeadThatDoesNotArriveInTimeClosesTheConnection() {
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.exa");
        ch.advanceTimeBy(61, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isActive()).isFalse();
        assertThat(vhost.settings.counters().slowHeads.get()).isEqualTo(1);
    }

    @Test
    @Timeout(180) // a thousand cases on a shared 2-core machine
    void fuzzedRequestHeadsAreRoutedAnsweredOrClosedNeverLeaked() {
        vhost.http("a.example.com", "", "a", 1);
        String[] seeds = {
            "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
            "POST /x HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 3\r\n\r\nabc",
            "PUT /y HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
            "GET http://a.example.com/z HTTP/1.1\r\nHost: b\r\nAuthorization: Basic YTpi\r\n\r\n",
        };
        Fuzz.run("vhost.http", rnd -> {
            byte[] input = (seeds[rnd.nextInt(seeds.length)] + seeds[rnd.nextInt(seeds.length)])
                    .getBytes(StandardCharsets.ISO_8859_1);
            int mutations = Fuzz.between(rnd, 0, 6);
            for (int i = 0; i < mutations; i++) {
                input[rnd.nextInt(input.length)] = (byte) rnd.nextInt(256);
            }
            EmbeddedChannel ch = vhost.newHttpConnection();
            int off = 0;
            while (off < input.length && ch.isActive()) {
                int n = Math.min(input.length - off, Fuzz.between(rnd, 1, 64));
                ch.writeInbound(io.netty.buffer.Unpooled.wrappedBuffer(input, off, n));
                off += n;
            }
            vhost.shuttle();
            for (VhostHarness.App app : java.util.List.copyOf(vhost.apps)) { // a reply may open another
                if (!app.stream.isClosed() && rnd.nextBoolean()) {
                    app.reply(OK);
                }
            }
            received(ch);
            ch.finishAndReleaseAll();
            vhost.shuttle();
            vhost.publicChannels.remove(ch);
        });
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
}
