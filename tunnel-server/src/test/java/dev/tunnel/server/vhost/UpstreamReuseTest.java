package dev.tunnel.server.vhost;

import static dev.tunnel.server.vhost.VhostHarness.received;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connections to an app outlive the public connection that opened them: parked per proxy after
 * a clean keep-alive exchange, taken by the next request from any public connection, and never
 * parked when something about the exchange leaves the connection in doubt.
 */
@Timeout(20)
class UpstreamReuseTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    private static final String GET = "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n";
    private static final String GET_CLOSE = "GET / HTTP/1.1\r\nHost: a.example.com\r\nConnection: close\r\n\r\n";
    private final VhostHarness vhost = new VhostHarness();

    @AfterEach
    void close() {
        vhost.close();
    }

    /** One public connection with one request that asks to close it, answered {@code OK}. */
    private EmbeddedChannel oneRequest(String request, String answer) {
        EmbeddedChannel ch = vhost.newHttpConnection();
        int before = vhost.apps.size();
        vhost.send(ch, request);
        VhostHarness.App app = vhost.apps.size() > before ? vhost.apps.get(before) : vhost.apps.get(0);
        app.reply(answer);
        assertThat(received(ch)).isEqualTo(answer);
        return ch;
    }

    @Test
    void aNewPublicConnectionTakesTheStreamTheLastOneLeftIdle() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel first = oneRequest(GET_CLOSE, OK);
        assertThat(first.isActive()).as("the visitor asked to close").isFalse();
        vhost.shuttle();
        VhostHarness.App app = vhost.apps.get(0);
        assertThat(app.received.toString()).as("the visitor's close is its own").doesNotContain("Connection");
        assertThat(app.fin).isFalse();
        assertThat(a.idle().size()).isEqualTo(1);

        EmbeddedChannel second = vhost.newHttpConnection();
        vhost.send(second, "GET /2 HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps).as("no new stream").hasSize(1);
        assertThat(app.received.toString()).contains("GET /2 HTTP/1.1\r\n");
        assertThat(a.idle().size()).isZero();
        app.reply(OK);
        assertThat(received(second)).isEqualTo(OK);
        assertThat(vhost.settings.counters().upstreamsOpened.get()).isEqualTo(1);
        assertThat(vhost.settings.counters().upstreamsReused.get()).isEqualTo(1);
    }

    @Test
    void anAppThatAnswersConnectionCloseGetsItsStreamEnded() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        oneRequest(GET, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok");
        vhost.shuttle();
        assertThat(vhost.apps.get(0).fin).isTrue();
        assertThat(a.idle().size()).isZero();
    }

    @Test
    void http10ExchangesAreNotPooled() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = oneRequest("GET / HTTP/1.0\r\nHost: a.example.com\r\n\r\n",
                "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok");
        vhost.shuttle();
        assertThat(ch.isActive()).isFalse();
        assertThat(vhost.apps.get(0).fin).isTrue();
        assertThat(a.idle().size()).isZero();
    }

    @Test
    void aResponseDelimitedByCloseIsNotPooled() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, GET);
        vhost.apps.get(0).reply("HTTP/1.1 200 OK\r\n\r\nuntil the end");
        vhost.apps.get(0).finish();
        assertThat(ch.isActive()).isFalse();
        assertThat(a.idle().size()).isZero();
    }

    @Test
    void aResponseTheVisitorDidNotWaitForEndsTheStream() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, GET);
        vhost.apps.get(0).reply("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\npart");
        ch.close();
        vhost.shuttle();
        assertThat(vhost.apps.get(0).reset).isTrue();
        assertThat(a.idle().size()).isZero();
    }

    @Test
    void anUpgradedStreamIsNeverPooled() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET /ws HTTP/1.1\r\nHost: a.example.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
        assertThat(vhost.apps.get(0).received.toString()).contains("Connection: Upgrade\r\n");
        vhost.apps.get(0).reply("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n");
        ch.close();
        vhost.shuttle();
        assertThat(a.idle().size()).isZero();
        oneRequest(GET_CLOSE, OK);
        assertThat(vhost.apps).hasSize(2);
    }

    @Test
    void anIdleStreamTheAppClosesIsDroppedAndTheNextRequestOpensAnother() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        oneRequest(GET_CLOSE, OK);
        vhost.apps.get(0).finish();
        assertThat(a.idle().size()).isZero();
        oneRequest(GET_CLOSE, OK);
        assertThat(vhost.apps).hasSize(2);
    }

    @Test
    void bytesFromTheAppWhileIdleDropTheStream() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        oneRequest(GET_CLOSE, OK);
        vhost.apps.get(0).reply("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno");
        assertThat(vhost.apps.get(0).reset).isTrue();
        assertThat(a.idle().size()).isZero();
    }

    @Test
    void aBodilessGetOnAReusedStreamThatClosesBeforeAnsweringIsSentAgain() {
        vhost.http("a.example.com", "", "a", 1);
        oneRequest(GET_CLOSE, OK);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "GET /again HTTP/1.1\r\nHost: a.example.com\r\n\r\n");
        assertThat(vhost.apps.get(0).received.toString()).contains("GET /again ");
        vhost.apps.get(0).finish(); // the app's idle timeout crossed the request
        assertThat(vhost.apps).hasSize(2);
        assertThat(vhost.apps.get(1).received.toString()).startsWith("GET /again HTTP/1.1\r\n");
        vhost.apps.get(1).reply(OK);
        assertThat(received(ch)).isEqualTo(OK);
        assertThat(ch.isActive()).isTrue();
        assertThat(vhost.settings.counters().retried.get()).isEqualTo(1);
        vhost.send(ch, GET);
        assertThat(vhost.apps).hasSize(2);
        assertThat(vhost.apps.get(1).received.toString()).as("the request after the retry goes on the new stream")
                .contains("GET / HTTP/1.1\r\n");
    }

    @Test
    void aPostOnAReusedStreamThatClosesIsNotSentAgain() {
        vhost.http("a.example.com", "", "a", 1);
        oneRequest(GET_CLOSE, OK);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, "POST /pay HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 3\r\n\r\nabc");
        vhost.apps.get(0).finish();
        assertThat(vhost.apps).hasSize(1);
        assertThat(received(ch)).startsWith("HTTP/1.1 502 ");
        assertThat(vhost.settings.counters().retried.get()).isZero();
    }

    @Test
    void aRequestThatFailsOnAFreshStreamIsNotSentAgain() {
        vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, GET);
        vhost.apps.get(0).finish();
        assertThat(vhost.apps).hasSize(1);
        assertThat(received(ch)).startsWith("HTTP/1.1 502 ");
    }

    @Test
    void streamsBeyondTheIdleBoundAreEnded() {
        vhost.maxIdle = 1;
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel one = vhost.newHttpConnection();
        vhost.send(one, GET);
        EmbeddedChannel two = vhost.newHttpConnection();
        vhost.send(two, GET);
        assertThat(vhost.apps).hasSize(2);
        vhost.apps.get(0).reply(OK);
        vhost.apps.get(1).reply(OK);
        one.close();
        two.close();
        vhost.shuttle();
        assertThat(a.idle().size()).isEqualTo(1);
        assertThat(vhost.apps.get(0).fin).as("parked").isFalse();
        assertThat(vhost.apps.get(1).fin).as("beyond the bound").isTrue();
    }

    @Test
    void idleStreamsExpire() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        oneRequest(GET_CLOSE, OK);
        vhost.serverSession.advanceTimeBy(IdleUpstreams.IDLE_TIMEOUT_SECONDS - 1, TimeUnit.SECONDS);
        vhost.shuttle();
        assertThat(a.idle().size()).isEqualTo(1);
        vhost.serverSession.advanceTimeBy(2, TimeUnit.SECONDS);
        vhost.shuttle();
        assertThat(a.idle().size()).isZero();
        assertThat(a.idle().expiredCount()).isEqualTo(1);
        assertThat(vhost.apps.get(0).fin).isTrue();
    }

    @Test
    void closingTheProxysPoolEndsItsIdleStreamsAndTheOnesGivenBackLater() {
        VhostTarget a = vhost.http("a.example.com", "", "a", 1);
        EmbeddedChannel busy = vhost.newHttpConnection();
        vhost.send(busy, GET);
        oneRequest(GET_CLOSE, OK);
        assertThat(vhost.apps).hasSize(2);
        a.idle().close();
        vhost.shuttle();
        assertThat(vhost.apps.get(1).fin).as("idle when the proxy went").isTrue();
        vhost.apps.get(0).reply(OK);
        busy.close();
        vhost.shuttle();
        assertThat(vhost.apps.get(0).fin).as("given back after").isTrue();
        assertThat(a.idle().size()).isZero();
    }

    @Test
    void aPublicConnectionIsAdmittedOncePerProxy() {
        vhost.http("a.example.com", "", "a", 1);
        vhost.http("b.example.com", "", "b", 2);
        EmbeddedChannel ch = vhost.newHttpConnection();
        for (String host : new String[] {"a", "b", "a", "b"}) {
            vhost.send(ch, "GET / HTTP/1.1\r\nHost: " + host + ".example.com\r\n\r\n");
            vhost.apps.get(host.equals("a") ? 0 : 1).reply(OK);
        }
        assertThat(received(ch)).isEqualTo(OK.repeat(4));
        assertThat(vhost.apps).hasSize(2);
        assertThat(vhost.admissions).isEqualTo(2);
    }

    @Test
    void aRefusedAdmissionIs502EvenWithIdleStreams() {
        vhost.http("a.example.com", "", "a", 1);
        oneRequest(GET_CLOSE, OK);
        vhost.admitting = false;
        EmbeddedChannel ch = vhost.newHttpConnection();
        vhost.send(ch, GET);
        assertThat(received(ch)).startsWith("HTTP/1.1 502 ");
        assertThat(vhost.apps.get(0).received.toString().split("GET / ", -1)).as("only the first request reached the app")
                .hasSize(2);
    }
}
