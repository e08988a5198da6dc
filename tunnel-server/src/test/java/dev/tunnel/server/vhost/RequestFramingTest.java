package dev.tunnel.server.vhost;

import static dev.tunnel.server.vhost.VhostHarness.received;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the app reads of a request: the head as it came plus the forwarding headers when nothing
 * else changes ({@link RequestSplice}), else re-encoded; and an attacker's requests whose framing
 * an app could read otherwise than the vhost (request smuggling) refused or normalised first.
 */
@Timeout(20)
class RequestFramingTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    private static final String ADDED = "X-Forwarded-For: embedded\r\nX-Forwarded-Host: a.example.com\r\n"
            + "X-Forwarded-Proto: http\r\nX-Real-IP: embedded\r\n\r\n";
    private final VhostHarness vhost = new VhostHarness();

    @AfterEach
    void close() {
        vhost.close();
    }

    private String appReceived() {
        return vhost.apps.get(0).received.toString();
    }

    @Test
    void aPlainHeadGoesAsItCameWithTheForwardingHeadersAppended() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        String head = "GET /x?y=1 HTTP/1.1\r\nhost: a.example.com\r\nuser-agent:  two  spaces\r\nAccept: */*\r\n";
        vhost.send(ch, "\r\n" + head + "\r\n");
        assertThat(appReceived()).isEqualTo(head + ADDED);
        vhost.apps.get(0).reply(OK);
        assertThat(received(ch)).isEqualTo(OK);
        vhost.send(ch, "POST /p HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 3\r\n\r\nabc");
        assertThat(appReceived()).as("a body: re-encoded, framing by the encoder")
                .endsWith("POST /p HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 3\r\n" + ADDED + "abc");
    }

    @Test
    void pipelinedAndSplitHeadsReachTheAppWhole() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET /1 HTTP/1.1\r\nHost: a.example.com\r\n\r\nGET /2 HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        vhost.apps.get(0).reply(OK);
        vhost.apps.get(0).reply(OK);
        assertThat(appReceived()).isEqualTo("GET /1 HTTP/1.1\r\nHost: a.example.com\r\n" + ADDED
                + "GET /2 HTTP/1.1\r\nHost: a.example.com\r\n" + ADDED);
        vhost.send(ch, "GET /3 HTTP/1.1\r\nHo");
        vhost.send(ch, "st: a.example.com\r\n\r\n");
        assertThat(appReceived()).endsWith("GET /3 HTTP/1.1\r\nHost: a.example.com\r\n" + ADDED);
        vhost.apps.get(0).reply(OK);
        assertThat(received(ch)).isEqualTo(OK.repeat(3));
    }

    @Test
    void aHeadWithForwardingHeadersOrRewritesIsReEncoded() {
        VhostTarget t = vhost.target("rw", 4);
        vhost.httpRoutes.add("a.example.com", "", "", "rw", new HttpRoute(t, "", "", "", java.util.Map.of("x-set", "1"),
                java.util.Map.of()));
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\nX-Real-IP: 6.6.6.6\r\n\r\n");
        assertThat(appReceived()).contains("X-Real-IP: embedded\r\n").doesNotContain("6.6.6.6")
                .contains("x-set: 1\r\n");
    }

    @Test
    void aFoldedHeaderLineIsJoinedNeverPassedOn() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\nX-Note: a\r\n Content-Length: 30\r\n\r\n");
        assertThat(appReceived()).contains("X-Note: a Content-Length: 30\r\n").doesNotContain("\n ")
                .doesNotContain("\nContent-Length");
    }

    @Test
    void ambiguousFramingIsRefusedBeforeAnythingReachesAnApp() {
        vhost.http("a.example.com", "", "a", 1);
        String[] attacks = {
            "POST / HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 3\r\nContent-Length: 30\r\n\r\nabc",
            "POST / HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: identity\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "POST / HTTP/1.0\r\nHost: a.example.com\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "GET / HTTP/1.1\nHost: a.example.com\n\n",
            "GET / HTTP/1.1\r\nHost: a.example.com\r\nContent-Length : 5\r\n\r\nhello",
        };
        for (String attack : attacks) {
            EmbeddedChannel ch = vhost.newHttpConnection();
            vhost.send(ch, attack);
            assertThat(received(ch)).as(attack).startsWith("HTTP/1.1 400 ");
            assertThat(ch.isActive()).as(attack).isFalse();
        }
        assertThat(vhost.apps).isEmpty();
        assertThat(vhost.settings.counters().badRequests.get()).isEqualTo(attacks.length);
    }

    @Test
    void spliceNeedsAnEmptyLineAndNoFold() {
        assertThat(plain("GET / HTTP/1.1\r\nHost: a\r\n\r\n")).isTrue();
        assertThat(plain("GET / HTTP/1.1\r\nHost: a\r\n\tb\r\n\r\n")).isFalse();
        assertThat(plain("GET / HTTP/1.1\r\nHost: a\r\n")).isFalse();
        assertThat(plain("\r\n")).isFalse();
    }

    private static boolean plain(String head) {
        io.netty.buffer.ByteBuf buf = io.netty.buffer.Unpooled.copiedBuffer(head, java.nio.charset.StandardCharsets.ISO_8859_1);
        try {
            return RequestSplice.plain(buf);
        } finally {
            buf.release();
        }
    }
}
