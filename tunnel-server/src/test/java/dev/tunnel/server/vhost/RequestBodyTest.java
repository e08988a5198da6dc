package dev.tunnel.server.vhost;

import static dev.tunnel.server.vhost.VhostHarness.received;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request body that cannot be read, or can never complete, is never passed to the app as a
 * complete one: a malformed chunk is 400, a visitor that closes its side before the body's end,
 * or sends none of it for {@code vhostHTTPBodyTimeout}, is ended, and the app's stream is reset
 * in every case (not left waiting for the rest, nor handed a last chunk the visitor never sent).
 */
@Timeout(20)
class RequestBodyTest {
    private static final String CHUNKED_POST = "POST /up HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: chunked\r\n\r\n";
    private final VhostHarness vhost = new VhostHarness();

    @AfterEach
    void close() {
        vhost.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"0x10\r\n0123456789abcdef\r\n0\r\n\r\n", "5 \r\nhello\r\n0\r\n\r\n",
        "5\nhello\n0\n\n", "fffffffffffffffffff\r\nhello\r\n0\r\n\r\n", "5\r\nhelloXX0\r\n\r\n"})
    void aMalformedChunkedBodyIs400AndTheAppsStreamIsReset(String body) {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, CHUNKED_POST + body + "GET /next HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(received(ch)).startsWith("HTTP/1.1 400 Bad Request\r\n");
        assertThat(ch.isActive()).isFalse();
        VhostHarness.App app = vhost.apps.get(0);
        assertThat(app.reset).as("the app's stream is not left half-sent").isTrue();
        assertThat(app.received.toString()).doesNotEndWith("0\r\n\r\n").doesNotContain("GET /next");
        assertThat(vhost.settings.counters().badRequests.get()).isEqualTo(1);
    }

    @Test
    void aChunkedBodyThatFailsAfterTheAppAnsweredClosesWithoutA400() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, CHUNKED_POST + "5\r\nhello\r\n");
        vhost.apps.get(0).reply("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nOK\r\n");
        vhost.send(ch, "zz\r\n");
        assertThat(received(ch)).isEqualTo("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nOK\r\n");
        assertThat(ch.isActive()).isFalse();
        assertThat(vhost.apps.get(0).reset).isTrue();
    }

    @Test
    void aVisitorThatClosesItsSideBeforeTheAnnouncedLengthIsEndedAndTheAppReset() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "POST /up HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 100000\r\n\r\n0123456789");
        assertThat(vhost.apps.get(0).received.toString()).endsWith("\r\n\r\n0123456789");
        halfClose(ch);
        assertThat(received(ch)).startsWith("HTTP/1.1 400 Bad Request\r\n");
        assertThat(ch.isActive()).isFalse();
        assertThat(vhost.apps.get(0).reset).isTrue();
    }

    @Test
    void aVisitorThatClosesItsSideInsideAChunkedBodyIsEndedWithoutALastChunk() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, CHUNKED_POST + "5\r\nhello\r\n");
        halfClose(ch);
        assertThat(ch.isActive()).isFalse();
        VhostHarness.App app = vhost.apps.get(0);
        assertThat(app.reset).isTrue();
        assertThat(app.received.toString()).endsWith("5\r\nhello\r\n");
    }

    @Test
    void aVisitorThatGoesAwayMidBodyResetsTheAppsStreamAndIsNoBadRequest() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "POST /up HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 100\r\n\r\n0123456789");
        ch.close();
        vhost.shuttle();
        assertThat(vhost.apps.get(0).reset).isTrue();
        assertThat(vhost.settings.counters().badRequests.get()).as("an upload given up on").isZero();
    }

    @Test
    void aVisitorThatClosesItsSideAfterAWholeBodyStillGetsTheAnswer() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "POST /up HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 4\r\n\r\ndata");
        halfClose(ch);
        assertThat(ch.isActive()).isTrue();
        vhost.apps.get(0).reply("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        assertThat(received(ch)).isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        assertThat(ch.isActive()).isFalse();
        assertThat(vhost.apps.get(0).reset).isFalse();
    }

    @Test
    void aBodyThatStopsArrivingIsEndedAfterTheBodyTimeout() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "POST /up HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 100\r\n\r\n0123456789");
        int timeout = vhost.settings.bodyTimeoutSeconds();
        ch.advanceTimeBy(timeout - 1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        vhost.send(ch, "0123456789");
        ch.advanceTimeBy(timeout - 1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isActive()).as("each part of the body starts the wait again").isTrue();
        ch.advanceTimeBy(2, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        vhost.shuttle();
        assertThat(received(ch)).startsWith("HTTP/1.1 408 Request Timeout\r\n");
        assertThat(ch.isActive()).isFalse();
        assertThat(vhost.apps.get(0).reset).isTrue();
        assertThat(vhost.settings.counters().slowBodies.get()).isEqualTo(1);
    }

    @Test
    void theBodyTimeoutEndsWithTheBody() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "POST /up HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 4\r\n\r\n");
        vhost.apps.get(0).reply("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nOK\r\n");
        vhost.send(ch, "data");
        ch.advanceTimeBy(vhost.settings.bodyTimeoutSeconds() + 1, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isActive()).as("the response streams on").isTrue();
        vhost.apps.get(0).reply("0\r\n\r\n");
        assertThat(received(ch)).endsWith("2\r\nOK\r\n0\r\n\r\n");
    }

    private void halfClose(EmbeddedChannel ch) {
        ch.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
        ch.runPendingTasks();
        vhost.shuttle();
    }
}
