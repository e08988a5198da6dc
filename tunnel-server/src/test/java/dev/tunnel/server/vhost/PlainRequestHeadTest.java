package dev.tunnel.server.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.testing.Fuzz;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class PlainRequestHeadTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

    /** Requests near the edge of plain, for the scan and the decoder to tell apart. */
    private static final String[] NEAR_PLAIN = {
        "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
        "GET /p?q=1#f HTTP/1.1\r\nHost: A.Example.COM:80\r\nAccept: */*\r\nUser-Agent: curl/8\r\n\r\n",
        "HEAD /h HTTP/1.1\r\nHost: a.example.com\r\nConnection: keep-alive\r\n\r\n",
        "GET /c HTTP/1.1\r\nHost: a.example.com\r\nConnection: close\r\n\r\n",
        "GET /c HTTP/1.1\r\nHost: a.example.com\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n",
        "POST /b HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 3\r\n\r\nabc",
        "POST /n HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
        "PUT /t HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a.example.com\r\nHost: r.example.com\r\n\r\n",
        "GET / HTTP/1.1\r\nHost:\r\n\r\n",
        "GET / HTTP/1.1\r\nX-A: b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a.example.com\r\nX-Forwarded-For: 10.0.0.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a.example.com\r\nX-Real-IP: 10.0.0.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: r.example.com\r\nX-A: 1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: auth.example.com\r\nAuthorization: Basic dTpw\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: auth.example.com\r\nAuthorization: Basic dTpx\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: auth.example.com\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: b.example.com\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a.example.com\r\nExpect: 100-continue\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : a.example.com\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a.example.com\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a.example.com\nX-A: b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a.example.com\r\nX-A: \u00e9t\u00e9\r\n\r\n",
        "GET / HTTP/1.1\r\nHost:\ta.example.com \t\r\nX-B:  spaced  \r\n\r\n",
        "GET  / HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
        "GET / HTTP/1.0\r\nHost: a.example.com\r\n\r\n",
        "GET http://a.example.com/x HTTP/1.1\r\nHost: b.example.com\r\n\r\n",
        "GET /x/../a/%61/./b?q=/.. HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
        "GET //a/.b/c;p/%2e. HTTP/1.1\r\nHost: auth.example.com\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
        "BREW /pot HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
        "get / HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
        "\r\nGET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
        "GET /" + "l".repeat(8100) + " HTTP/1.1\r\nHost: a.example.com\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a.example.com\r\nX-Long: " + "l".repeat(900) + "\r\n\r\n",
    };

    @Test
    void whatTheScanTakesAndWhatItLeavesToTheDecoder() {
        assertThat(plain("GET /p?q HTTP/1.1\r\nHost: a\r\nAccept: */*\r\nConnection: keep-alive\r\n\r\n")).isTrue();
        assertThat(plain("DELETE /x HTTP/1.1\r\nhost: a\r\nAuthorization: Basic x\r\n\r\n")).isTrue();
        assertThat(plain("GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\n")).as("one whole head is enough").isTrue();
        for (String notPlain : new String[] {
            "GET / HTTP/1.1\r\nHost: a\r\n", // incomplete
            "GET / HTTP/1.0\r\nHost: a\r\n\r\n",
            "GET / HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-Proto: https\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nAuthorization: a\r\nAuthorization: b\r\n\r\n",
            "GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /\u00e9 HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nX: a\u0001b\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\n\tfolded\r\n\r\n",
        }) {
            assertThat(plain(notPlain)).as(notPlain).isFalse();
        }
    }

    @Test
    void aPlainHeadReadsBackAsTheRequestTheDecoderMakes() {
        String head = "GET /p?q=1 HTTP/1.1\r\nHost: \ta.example.com:80 \r\nAccept: */*\r\nX-Empty:\r\nX-Dup: 1\r\n"
                + "x-dup: 2\r\n\r\n";
        PlainRequestHead scan = new PlainRequestHead();
        ByteBuf in = Unpooled.copiedBuffer(head, StandardCharsets.ISO_8859_1);
        assertThat(scan.scan(in, 0)).isTrue();
        PlainRequest read = scan.request(UnpooledByteBufAllocator.DEFAULT);
        try {
            assertThat(read.host()).isEqualTo("a.example.com:80");
            assertThat(read.routingHost()).isEqualTo("a.example.com");
            assertThat(read.path()).isEqualTo("/p");
            assertThat(read.authorization()).isNull();
            HttpRequest mine = read.toHttpRequest();
            HttpRequest netty = decodedByNetty(head);
            assertThat(mine.method()).isEqualTo(netty.method());
            assertThat(mine.uri()).isEqualTo(netty.uri());
            assertThat(mine.protocolVersion()).isEqualTo(netty.protocolVersion());
            assertThat(mine.headers().entries().toString()).isEqualTo(netty.headers().entries().toString());
        } finally {
            read.release();
            in.release();
        }
    }

    /**
     * The property that lets the scan stand in for the decoder: two vhost ports with the same
     * routes, one scanning plain heads and one decoding every head, fed the same near-plain
     * requests cut at the same random points, send the same bytes to the same apps and the same
     * answers to the visitor, and end the connection alike.
     */
    @Test
    @Timeout(180) // a thousand cases on a shared 2-core machine
    void theScanAndTheDecoderSendEveryInputAlike() {
        Fuzz.run("vhost.request.plain", rnd -> {
            byte[] input = NearPlainInputs.mutated(rnd, NEAR_PLAIN, ":\r\n \t,/?#.%;\\");
            int[] cuts = NearPlainInputs.cuts(rnd, input.length);
            String seen = new String(input, StandardCharsets.ISO_8859_1);
            Outcome scanned = run(true, input, cuts);
            Outcome decoded = run(false, input, cuts);
            assertThat(scanned.apps).as("apps: %s", seen).isEqualTo(decoded.apps);
            assertThat(scanned.visitor).as("visitor: %s", seen).isEqualTo(decoded.visitor);
            assertThat(scanned.open).as("open: %s", seen).isEqualTo(decoded.open);
        });
    }

    /** What one vhost port made of {@code input}: what each app received, what the visitor did. */
    private record Outcome(List<String> apps, String visitor, boolean open) {
    }

    private static Outcome run(boolean scan, byte[] input, int[] cuts) {
        try (VhostHarness vhost = new VhostHarness()) {
            vhost.scanPlainHeads = scan;
            vhost.http("a.example.com", "", "a", 1);
            vhost.httpRoutes.add("r.example.com", "", "", "r", new HttpRoute(vhost.target("r", 2), "", "",
                    "app.internal", Map.of("X-A", "set"), Map.of()));
            vhost.httpRoutes.add("auth.example.com", "", "", "auth", new HttpRoute(vhost.target("auth", 3), "u", "p",
                    "", Map.of(), Map.of()));
            EmbeddedChannel ch = vhost.newHttpConnection();
            int from = 0;
            for (int i = 0; i <= cuts.length && ch.isActive(); i++) {
                int to = i < cuts.length ? cuts[i] : input.length;
                ch.writeInbound(Unpooled.copiedBuffer(input, from, to - from));
                vhost.shuttle();
                from = to;
            }
            StringBuilder visitor = new StringBuilder();
            for (int round = 0; round < 4; round++) { // each answer may let a waiting request go
                visitor.append(VhostHarness.received(ch));
                for (VhostHarness.App app : List.copyOf(vhost.apps)) {
                    if (!app.stream.isClosed()) {
                        app.reply(OK);
                    }
                }
            }
            visitor.append(VhostHarness.received(ch));
            List<String> apps = new ArrayList<>();
            for (VhostHarness.App app : vhost.apps) {
                apps.add(app.proxyId + ": " + app.received);
            }
            return new Outcome(apps, visitor.toString(), ch.isActive());
        }
    }

    private static boolean plain(String head) {
        ByteBuf in = Unpooled.copiedBuffer(head, StandardCharsets.ISO_8859_1);
        try {
            return new PlainRequestHead().scan(in, 0);
        } finally {
            in.release();
        }
    }

    private static HttpRequest decodedByNetty(String head) {
        EmbeddedChannel ch = new EmbeddedChannel(new HttpRequestDecoder(new HttpDecoderConfig()));
        ch.writeInbound(Unpooled.copiedBuffer(head, StandardCharsets.ISO_8859_1));
        HttpRequest request = ch.readInbound();
        assertThat((Object) ch.readInbound()).isSameAs(LastHttpContent.EMPTY_LAST_CONTENT);
        ch.finishAndReleaseAll();
        return request;
    }
}
