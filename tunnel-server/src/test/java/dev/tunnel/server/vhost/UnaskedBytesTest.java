package dev.tunnel.server.vhost;

import static dev.tunnel.server.vhost.VhostHarness.received;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bytes an app sends beyond the response it was asked for (a second response in the same write,
 * or anything on a kept-alive connection no request is outstanding on) never reach a visitor:
 * they are dropped and the connection to the app is reset, never used again.
 */
@Timeout(20)
class UnaskedBytesTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK";
    private static final String FORGED = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged";
    private final VhostHarness vhost = new VhostHarness();

    @AfterEach
    void close() {
        vhost.close();
    }

    @Test
    void aSecondResponseInTheSameWriteIsNotTakenAsTheNextHostsAnswer() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        vhost.http("b.example.com", "", "b", 2);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET /1 HTTP/1.1\r\nHost: a.example.com\r\n\r\nGET /2 HTTP/1.1\r\nHost: b.example.com\r\n\r\n");
        vhost.apps.get(0).reply(OK + FORGED);
        assertThat(received(ch)).as("a's own answer only").isEqualTo(OK);
        assertThat(vhost.apps.get(0).reset).as("a's stream is out of step").isTrue();
        assertThat(vhost.apps).as("b was asked").hasSize(2);
        vhost.apps.get(1).reply("HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(received(ch)).isEqualTo("HTTP/1.1 204 No Content\r\n\r\n");
        assertThat(a.idle().size()).isZero();
    }

    @Test
    void extraBytesBehindAChunkedResponseAreDropped() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        String chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nOK\r\n0\r\n\r\n";
        vhost.apps.get(0).reply(chunked + "HTTP/1.1 200");
        assertThat(received(ch)).isEqualTo(chunked);
        assertThat(vhost.apps.get(0).reset).isTrue();
        vhost.send(ch, "GET /next HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).as("the next request gets a stream of its own").hasSize(2);
        vhost.apps.get(1).reply(OK);
        assertThat(received(ch)).isEqualTo(OK);
    }

    @Test
    void anInterimResponseLeavesTheFinalOneAsked() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        vhost.apps.get(0).reply("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" + OK);
        assertThat(received(ch)).isEqualTo("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n" + OK);
        assertThat(vhost.apps.get(0).reset).isFalse();
        vhost.send(ch, "GET /2 HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).as("the stream is kept").hasSize(1);
    }

    @Test
    void aKeptAliveStreamThatSpeaksUnaskedIsEndedAndNothingReachesTheVisitor() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET /1 HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        vhost.apps.get(0).reply(OK);
        assertThat(received(ch)).isEqualTo(OK);
        vhost.apps.get(0).reply(FORGED); // no request is outstanding on it
        assertThat(received(ch)).isEmpty();
        assertThat(vhost.apps.get(0).reset).isTrue();
        vhost.send(ch, "GET /2 HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).hasSize(2);
        assertThat(vhost.apps.get(0).received.toString()).doesNotContain("GET /2");
        vhost.apps.get(1).reply(OK);
        assertThat(received(ch)).isEqualTo(OK);
        ch.close();
        vhost.shuttle();
        assertThat(a.idle().size()).as("only the clean stream is parked").isEqualTo(1);
    }

    @Test
    void aParkedStreamThatSpeaksUnaskedIsDroppedFromItsPool() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET / HTTP/1.1\r\nHost: a.example.com\r\nConnection: close\r\n\r\n");
        vhost.apps.get(0).reply(OK);
        assertThat(a.idle().size()).isEqualTo(1);
        vhost.apps.get(0).reply(FORGED);
        assertThat(a.idle().size()).isZero();
        assertThat(vhost.apps.get(0).reset).isTrue();
        EmbeddedChannel next = vhost.newHttpConnection();
        vhost.send(next, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).hasSize(2);
        vhost.apps.get(1).reply(OK);
        assertThat(received(next)).isEqualTo(OK);
    }
}
