package dev.tunnel.web;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

@Timeout(10)
class WebHandlerTest {
    private final AtomicInteger reloads = new AtomicInteger();
    private final Routes routes = new Routes()
            .open("/healthz", r -> WebResponse.ok())
            .get("/api/proxy/{type}/{name}", r -> WebResponse.text(io.netty.handler.codec.http.HttpResponseStatus.OK,
                    r.param("type") + "|" + r.param("name")))
            .change(HttpMethod.GET, "/api/reload", r -> {
                reloads.incrementAndGet();
                return WebResponse.ok();
            })
            .change(HttpMethod.PUT, "/api/config", r -> WebResponse.text(io.netty.handler.codec.http.HttpResponseStatus.OK,
                    "got " + r.bodyText()))
            .change(HttpMethod.PUT, "/api/deep", r -> {
                throw new StackOverflowError();
            })
            .get("/api/bug", r -> {
                throw new IllegalStateException("a bug");
            });
    private EmbeddedChannel channel;

    private EmbeddedChannel withAuth() {
        return channel = new EmbeddedChannel(new WebHandler(routes, new BasicAuth("admin", "s3cret"), Runnable::run));
    }

    private EmbeddedChannel withoutAuth() {
        return channel = new EmbeddedChannel(new WebHandler(routes, null, Runnable::run));
    }

    @AfterEach
    void release() {
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    private FullHttpResponse call(FullHttpRequest request) {
        channel.writeInbound(request);
        channel.runPendingTasks();
        return channel.readOutbound();
    }

    private static FullHttpRequest get(String uri) {
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, uri);
        req.headers().set(HttpHeaderNames.HOST, "127.0.0.1:7500");
        return req;
    }

    private static FullHttpRequest authed(FullHttpRequest req, String user, String password) {
        req.headers().set(HttpHeaderNames.AUTHORIZATION, "Basic " + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
        return req;
    }

    private static String body(FullHttpResponse res) {
        try {
            return res.content().toString(StandardCharsets.UTF_8);
        } finally {
            res.release();
        }
    }

    @Test
    void healthzAnswersWithoutCredentials() {
        withAuth();
        FullHttpResponse res = call(get("/healthz"));
        assertThat(res.status().code()).isEqualTo(200);
        res.release();
    }

    @Test
    void apiWithoutCredentialsIs401WithAChallenge() {
        withAuth();
        FullHttpResponse res = call(get("/api/proxy/tcp/ssh"));
        assertThat(res.status().code()).isEqualTo(401);
        assertThat(res.headers().get("WWW-Authenticate")).startsWith("Basic realm=");
        res.release();
    }

    @Test
    void wrongPasswordOrUserIs401() {
        withAuth();
        FullHttpResponse wrongPassword = call(authed(get("/api/proxy/tcp/ssh"), "admin", "s3cre"));
        assertThat(wrongPassword.status().code()).isEqualTo(401);
        wrongPassword.release();
        FullHttpResponse wrongUser = call(authed(get("/api/proxy/tcp/ssh"), "admi", "s3cret"));
        assertThat(wrongUser.status().code()).isEqualTo(401);
        wrongUser.release();
        FullHttpResponse garbage = call(authed(get("/api/proxy/tcp/ssh"), "", ""));
        assertThat(garbage.status().code()).isEqualTo(401);
        garbage.release();
    }

    @Test
    void unknownPathsAre401BeforeTheyAre404() {
        withAuth();
        FullHttpResponse anonymous = call(get("/api/nothing"));
        assertThat(anonymous.status().code()).isEqualTo(401);
        anonymous.release();
        FullHttpResponse known = call(authed(get("/api/nothing"), "admin", "s3cret"));
        assertThat(known.status().code()).isEqualTo(404);
        known.release();
    }

    @Test
    void pathParametersAreDecoded() {
        withAuth();
        FullHttpResponse res = call(authed(get("/api/proxy/tcp/my%20ssh"), "admin", "s3cret"));
        assertThat(res.status().code()).isEqualTo(200);
        assertThat(body(res)).isEqualTo("tcp|my ssh\n");
    }

    @Test
    void wrongMethodIs405WithAllow() {
        withAuth();
        FullHttpRequest post = authed(get("/api/proxy/tcp/ssh"), "admin", "s3cret");
        post.setMethod(HttpMethod.POST);
        FullHttpResponse res = call(post);
        assertThat(res.status().code()).isEqualTo(405);
        assertThat(res.headers().get("Allow")).isEqualTo("GET");
        res.release();
    }

    @Test
    void crossSiteReloadIsRefusedAndDoesNothing() {
        withAuth();
        FullHttpRequest img = authed(get("/api/reload"), "admin", "s3cret");
        img.headers().set("Sec-Fetch-Site", "cross-site");
        FullHttpResponse res = call(img);
        assertThat(res.status().code()).isEqualTo(403);
        res.release();
        FullHttpRequest form = authed(get("/api/reload"), "admin", "s3cret");
        form.headers().set(HttpHeaderNames.ORIGIN, "https://evil.example");
        FullHttpResponse res2 = call(form);
        assertThat(res2.status().code()).isEqualTo(403);
        res2.release();
        assertThat(reloads).hasValue(0);
    }

    @Test
    void sameOriginAndNonBrowserReloadsGoThrough() {
        withAuth();
        FullHttpResponse curl = call(authed(get("/api/reload"), "admin", "s3cret"));
        assertThat(curl.status().code()).isEqualTo(200);
        curl.release();
        FullHttpRequest page = authed(get("/api/reload"), "admin", "s3cret");
        page.headers().set("Sec-Fetch-Site", "same-origin").set(HttpHeaderNames.ORIGIN, "http://127.0.0.1:7500");
        FullHttpResponse res = call(page);
        assertThat(res.status().code()).isEqualTo(200);
        res.release();
        assertThat(reloads).hasValue(2);
    }

    @Test
    void putCarriesItsBody() {
        withAuth();
        FullHttpRequest put = authed(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/api/config",
                Unpooled.copiedBuffer("serverPort = 7000", StandardCharsets.UTF_8)), "admin", "s3cret");
        assertThat(body(call(put))).isEqualTo("got serverPort = 7000\n");
    }

    @Test
    void aRouteThatThrowsEvenAnErrorAnswers500AndLogsOneLine() {
        Logger logger = (Logger) LoggerFactory.getLogger(WebHandler.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        try {
            withAuth();
            FullHttpRequest put = authed(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/api/deep",
                    Unpooled.copiedBuffer("x = [[[", StandardCharsets.UTF_8)), "admin", "s3cret");
            FullHttpResponse deep = call(put);
            assertThat(deep).as("an answer, not a dropped request").isNotNull();
            assertThat(deep.status().code()).isEqualTo(500);
            assertThat(body(deep)).isEqualTo("internal error: StackOverflowError\n");
            FullHttpResponse bug = call(authed(get("/api/bug"), "admin", "s3cret"));
            assertThat(bug.status().code()).isEqualTo(500);
            assertThat(body(bug)).isEqualTo("internal error: IllegalStateException: a bug\n");
            assertThat(logged.list).extracting(ILoggingEvent::getLevel).containsExactly(Level.ERROR, Level.ERROR);
            assertThat(logged.list.get(0).getFormattedMessage()).contains("PUT /api/deep failed: java.lang.StackOverflowError");
            assertThat(logged.list.get(1).getFormattedMessage()).contains("GET /api/bug failed: java.lang.IllegalStateException: a bug");
            assertThat(channel.isActive()).as("the connection stays usable").isTrue();
        } finally {
            logger.detachAppender(logged);
        }
    }

    @Test
    void anUndecodablePathParameterIsNotFoundNotADroppedConnection() {
        withAuth();
        FullHttpResponse res = call(authed(get("/api/proxy/tcp/%zz"), "admin", "s3cret"));
        assertThat(res).isNotNull();
        assertThat(res.status().code()).isEqualTo(404);
        res.release();
    }

    @Test
    void withoutCredentialsAHostNameIsRefused() {
        withoutAuth();
        FullHttpRequest rebound = get("/api/proxy/tcp/ssh");
        rebound.headers().set(HttpHeaderNames.HOST, "attacker.example:7500");
        FullHttpResponse res = call(rebound);
        assertThat(res.status().code()).isEqualTo(403);
        res.release();
        FullHttpRequest local = get("/api/proxy/tcp/ssh");
        local.headers().set(HttpHeaderNames.HOST, "localhost:7500");
        FullHttpResponse ok = call(local);
        assertThat(ok.status().code()).isEqualTo(200);
        ok.release();
    }
}
