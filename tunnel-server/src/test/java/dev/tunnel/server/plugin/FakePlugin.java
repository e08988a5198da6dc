package dev.tunnel.server.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A server plugin for tests: the JDK's HTTP server on 127.0.0.1 and an ephemeral port, answering
 * each call with what {@code answers} says, and keeping every call it got. A test's plugin as a
 * user would write one, in another stack than the server's HTTP client.
 */
public final class FakePlugin implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One call as the plugin saw it. */
    public record Call(String method, String path, String query, String contentType, String reqId, JsonNode body) {
        public String op() {
            return body.path("op").asText();
        }

        public JsonNode content() {
            return body.path("content");
        }
    }

    /**
     * What to answer.
     *
     * @param delayMillis how long to wait before answering
     */
    public record Answer(int status, String body, long delayMillis) {
        public static Answer allow() {
            return new Answer(200, "{\"reject\": false, \"unchange\": true}", 0);
        }

        public static Answer reject(String reason) {
            return new Answer(200, "{\"reject\": true, \"reject_reason\": \"" + reason + "\"}", 0);
        }

        public static Answer replace(String contentJson) {
            return new Answer(200, "{\"unchange\": false, \"content\": " + contentJson + "}", 0);
        }

        public static Answer status(int status) {
            return new Answer(status, "{}", 0);
        }

        public static Answer raw(String body) {
            return new Answer(200, body, 0);
        }

        public Answer after(long millis) {
            return new Answer(status, body, millis);
        }
    }

    private final HttpServer server;
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final CountDownLatch closing = new CountDownLatch(1);
    private volatile Function<Call, Answer> answers;

    public FakePlugin(Function<Call, Answer> answers) throws IOException {
        this.answers = answers;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fake-plugin");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", this::handle);
        server.start();
    }

    /** Changes the answers from now on. */
    public void answers(Function<Call, Answer> answers) {
        this.answers = answers;
    }

    /** {@code 127.0.0.1:PORT}, as an {@code addr}. */
    public String addr() {
        return "127.0.0.1:" + server.getAddress().getPort();
    }

    /** Every call so far, in arrival order. */
    public List<Call> calls() {
        return List.copyOf(calls);
    }

    /** The calls for {@code op} so far. */
    public List<Call> calls(String op) {
        return calls.stream().filter(c -> c.op().equals(op)).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] in = exchange.getRequestBody().readAllBytes();
            JsonNode body = in.length == 0 ? JSON.createObjectNode() : JSON.readTree(in);
            Call call = new Call(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                    exchange.getRequestURI().getRawQuery(), exchange.getRequestHeaders().getFirst("Content-Type"),
                    exchange.getRequestHeaders().getFirst("X-Frp-Reqid"), body);
            calls.add(call);
            Answer answer = answers.apply(call);
            if (answer.delayMillis() > 0 && closing.await(answer.delayMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
            byte[] out = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(answer.status(), out.length);
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
