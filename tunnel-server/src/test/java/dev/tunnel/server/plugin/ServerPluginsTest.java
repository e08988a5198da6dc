package dev.tunnel.server.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tunnel.protocol.transport.Transports;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Calls to a real plugin over HTTP on 127.0.0.1: the request frp's plugins expect, and every kind
 * of answer (allow, reject, replace, another status, silence, garbage, too much) with the outcome
 * the server acts on.
 */
@Timeout(30)
class ServerPluginsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final UserInfo USER = new UserInfo("alice", Map.of(), "run-1");
    private static final HttpPlugin.Limits FAST = new HttpPlugin.Limits(1_000, 4096, 2, 2);

    private final EventLoopGroup group = Transports.newGroup(1, "plugin-test");
    private final EventExecutor loop = group.next();
    private final List<FakePlugin> fakes = new ArrayList<>();

    @AfterEach
    void close() {
        fakes.forEach(FakePlugin::close);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void anAllowedCallSendsFrpsRequestAndKeepsTheContent() throws Exception {
        FakePlugin fake = fake(c -> FakePlugin.Answer.allow());
        ServerPlugins plugins = plugins(plugin("p", fake.addr(), "/handler", PluginOp.NEW_PROXY));
        JsonNode content = PluginRequests.newProxy(USER, "alice.ssh", "tcp", dev.tunnel.protocol.Options.EMPTY);

        ServerPlugins.Outcome outcome = await(plugins.run(PluginOp.NEW_PROXY, content, loop));

        assertThat(outcome.changed()).isFalse();
        assertThat(outcome.content()).isSameAs(content);
        FakePlugin.Call call = fake.calls().get(0);
        assertThat(call.method()).isEqualTo("POST");
        assertThat(call.path()).isEqualTo("/handler");
        assertThat(call.query()).isEqualTo("version=0.1.0&op=NewProxy");
        assertThat(call.contentType()).isEqualTo("application/json");
        assertThat(call.reqId()).isNotBlank();
        assertThat(call.op()).isEqualTo("NewProxy");
        assertThat(call.body().get("version").asText()).isEqualTo("0.1.0");
        assertThat(call.content().get("proxy_name").asText()).isEqualTo("alice.ssh");
    }

    @Test
    void aRejectionNamesThePluginAndItsReason() {
        FakePlugin fake = fake(c -> FakePlugin.Answer.reject("invalid user"));
        ServerPlugins plugins = plugins(plugin("user-manager", fake.addr(), "/h", PluginOp.LOGIN));

        PluginException e = failure(plugins.run(PluginOp.LOGIN, JSON.createObjectNode(), loop));

        assertThat(e).isInstanceOf(PluginException.Rejected.class);
        assertThat(e.clientMessage()).isEqualTo("server plugin [user-manager] rejected Login: invalid user");
    }

    @Test
    void pluginsRunInOrderEachSeeingTheContentTheOneBeforeLeft() throws Exception {
        FakePlugin first = fake(c -> FakePlugin.Answer.replace("{\"user\": \"carol\"}"));
        FakePlugin second = fake(c -> FakePlugin.Answer.allow());
        FakePlugin notSubscribed = fake(c -> FakePlugin.Answer.reject("never asked"));
        ServerPlugins plugins = plugins(plugin("first", first.addr(), "", PluginOp.LOGIN),
                plugin("other", notSubscribed.addr(), "", PluginOp.NEW_PROXY),
                plugin("second", second.addr(), "", PluginOp.LOGIN));

        ServerPlugins.Outcome outcome = await(plugins.run(PluginOp.LOGIN, JSON.readTree("{\"user\": \"bob\"}"), loop));

        assertThat(outcome.changedBy()).isEqualTo("first");
        assertThat(outcome.content().get("user").asText()).isEqualTo("carol");
        assertThat(second.calls().get(0).content().get("user").asText()).isEqualTo("carol");
        assertThat(notSubscribed.calls()).isEmpty();
    }

    @Test
    void theFirstRejectionEndsTheChain() {
        FakePlugin first = fake(c -> FakePlugin.Answer.reject("no"));
        FakePlugin second = fake(c -> FakePlugin.Answer.allow());
        ServerPlugins plugins = plugins(plugin("first", first.addr(), "", PluginOp.PING),
                plugin("second", second.addr(), "", PluginOp.PING));

        assertThat(failure(plugins.run(PluginOp.PING, JSON.createObjectNode(), loop))).isInstanceOf(PluginException.Rejected.class);
        assertThat(second.calls()).isEmpty();
    }

    @Test
    void aStatusOtherThan200Refuses() {
        FakePlugin fake = fake(c -> FakePlugin.Answer.status(500));
        PluginException e = failure(plugins(plugin("p", fake.addr(), "", PluginOp.LOGIN))
                .run(PluginOp.LOGIN, JSON.createObjectNode(), loop));
        assertThat(e).isInstanceOf(PluginException.Failed.class).hasMessageContaining("HTTP status 500");
        assertThat(e.clientMessage()).isEqualTo("send Login request to plugin [p] error");
    }

    @Test
    void malformedJsonRefuses() {
        FakePlugin fake = fake(c -> FakePlugin.Answer.raw("{\"reject\": fals"));
        PluginException e = failure(plugins(plugin("p", fake.addr(), "", PluginOp.NEW_PROXY))
                .run(PluginOp.NEW_PROXY, JSON.createObjectNode(), loop));
        assertThat(e).hasMessageContaining("not JSON");
    }

    @Test
    void anAnswerLongerThanTheCapRefuses() {
        FakePlugin fake = fake(c -> FakePlugin.Answer.raw("{\"reject\": false, \"unchange\": true, \"pad\": \""
                + "x".repeat(10_000) + "\"}"));
        PluginException e = failure(plugins(plugin("p", fake.addr(), "", PluginOp.LOGIN))
                .run(PluginOp.LOGIN, JSON.createObjectNode(), loop));
        assertThat(e).hasMessageContaining("longer than 4096 bytes");
    }

    @Test
    void aPluginThatDoesNotAnswerInTimeRefuses() {
        FakePlugin fake = fake(c -> FakePlugin.Answer.allow().after(20_000));
        long start = System.nanoTime();
        PluginException e = failure(plugins(plugin("slow", fake.addr(), "", PluginOp.LOGIN))
                .run(PluginOp.LOGIN, JSON.createObjectNode(), loop));
        assertThat(e).hasMessageContaining("no answer within 1000 ms");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(15);
    }

    @Test
    void nobodyListeningRefusesWithTheReason() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        PluginException e = failure(plugins(plugin("gone", "127.0.0.1:" + port, "", PluginOp.LOGIN))
                .run(PluginOp.LOGIN, JSON.createObjectNode(), loop));
        assertThat(e).hasMessageContaining("cannot connect");
    }

    @Test
    void callsBeyondTheInFlightAndQueueCapsAreRefusedAtOnce() throws Exception {
        FakePlugin fake = fake(c -> FakePlugin.Answer.allow().after(20_000));
        HttpPlugin.Limits limits = new HttpPlugin.Limits(4_000, 4096, 2, 2);
        ServerPlugins plugins = plugins(new HttpPlugin("slow", PluginEndpoint.parse(fake.addr(), ""),
                EnumSet.of(PluginOp.NEW_USER_CONN), false, group, limits));
        List<Future<ServerPlugins.Outcome>> calls = new ArrayList<>();
        for (int i = 0; i < 4; i++) { // 2 in flight + 2 waiting
            calls.add(plugins.run(PluginOp.NEW_USER_CONN, JSON.createObjectNode(), loop));
        }
        PluginException refused = failure(plugins.run(PluginOp.NEW_USER_CONN, JSON.createObjectNode(), loop));
        assertThat(refused).hasMessageContaining("2 calls in flight and 2 waiting");
        org.awaitility.Awaitility.await("only the calls in flight reach the plugin")
                .during(java.time.Duration.ofMillis(500)).atMost(java.time.Duration.ofSeconds(3))
                .until(() -> fake.calls().size() == 2);
        for (Future<ServerPlugins.Outcome> call : calls) {
            assertThat(failure(call)).hasMessageContaining("no answer within 4000 ms");
        }
    }

    @Test
    void aNotificationTellsEverySubscriber() {
        FakePlugin a = fake(c -> FakePlugin.Answer.reject("ignored"));
        FakePlugin b = fake(c -> FakePlugin.Answer.allow());
        ServerPlugins plugins = plugins(plugin("a", a.addr(), "", PluginOp.CLOSE_PROXY),
                plugin("b", b.addr(), "", PluginOp.CLOSE_PROXY));
        plugins.notify(PluginOp.CLOSE_PROXY, PluginRequests.closeProxy(USER, "alice.ssh"), loop);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> a.calls().size() == 1 && b.calls().size() == 1);
    }

    @Test
    void anOpNobodyListsPassesWithoutACall() throws Exception {
        FakePlugin fake = fake(c -> FakePlugin.Answer.reject("no"));
        ServerPlugins plugins = plugins(plugin("p", fake.addr(), "", PluginOp.LOGIN));
        assertThat(plugins.handles(PluginOp.NEW_USER_CONN)).isFalse();
        assertThat(await(plugins.run(PluginOp.NEW_USER_CONN, JSON.createObjectNode(), loop)).changed()).isFalse();
        assertThat(fake.calls()).isEmpty();
    }

    private FakePlugin fake(java.util.function.Function<FakePlugin.Call, FakePlugin.Answer> answers) {
        try {
            FakePlugin fake = new FakePlugin(answers);
            fakes.add(fake);
            return fake;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private HttpPlugin plugin(String name, String addr, String path, PluginOp op) {
        return new HttpPlugin(name, PluginEndpoint.parse(addr, path), EnumSet.of(op), false, group, FAST);
    }

    private static ServerPlugins plugins(HttpPlugin... plugins) {
        return new ServerPlugins(List.of(plugins));
    }

    private static <T> T await(Future<T> future) throws Exception {
        assertThat(future.await(10, TimeUnit.SECONDS)).as("answered").isTrue();
        if (!future.isSuccess()) {
            throw new AssertionError("failed: " + future.cause(), future.cause());
        }
        return future.getNow();
    }

    private static PluginException failure(Future<?> future) {
        assertThat(future.awaitUninterruptibly(10, TimeUnit.SECONDS)).as("answered").isTrue();
        assertThat(future.isSuccess()).as("refused").isFalse();
        assertThat(future.cause()).isInstanceOf(PluginException.class);
        return (PluginException) future.cause();
    }
}
