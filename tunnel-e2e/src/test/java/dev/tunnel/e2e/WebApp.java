package dev.tunnel.e2e;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A local web app for vhost tests (the JDK's HTTP server): {@code GET} answers one line naming
 * the app and what the request looked like when it arrived ({@code app=NAME path=... host=...
 * xff=... xfh=... proto=... realip=... auth=... from=... conn=... connection=... target=...}, where conn is the
 * port the request's connection came from, so a test can tell connections apart, and target the
 * request target as it came); {@code POST} answers the sha256 of its
 * body; {@code GET /bytes/N} answers N bytes of a fixed pattern.
 */
final class WebApp implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "web-app");
        t.setDaemon(true);
        return t;
    });

    WebApp(String name) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
        server.setExecutor(threads);
        server.createContext("/", exchange -> {
            try (exchange) {
                handle(name, exchange);
            }
        });
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    private static void handle(String name, HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        byte[] body;
        if (exchange.getRequestMethod().equals("POST") || exchange.getRequestMethod().equals("PUT")) {
            body = sha256(exchange.getRequestBody()).getBytes(StandardCharsets.US_ASCII);
        } else if (path.startsWith("/bytes/")) {
            int n = Integer.parseInt(path.substring(7));
            exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
            exchange.sendResponseHeaders(200, n);
            byte[] chunk = pattern(65536);
            for (int sent = 0; sent < n; sent += chunk.length) {
                exchange.getResponseBody().write(chunk, 0, Math.min(chunk.length, n - sent));
            }
            return;
        } else {
            var h = exchange.getRequestHeaders();
            body = ("app=" + name + " path=" + path + " host=" + h.getFirst("Host") + " xff=" + h.getFirst("X-Forwarded-For")
                    + " xfh=" + h.getFirst("X-Forwarded-Host") + " proto=" + h.getFirst("X-Forwarded-Proto")
                    + " realip=" + h.getFirst("X-Real-IP") + " auth=" + h.getFirst("Authorization")
                    + " from=" + h.getFirst("X-From-Where") + " conn=" + exchange.getRemoteAddress().getPort()
                    + " connection=" + h.getFirst("Connection") + " target=" + exchange.getRequestURI())
                    .getBytes(StandardCharsets.UTF_8);
        }
        exchange.getResponseHeaders().set("Content-Type", "text/plain");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
    }

    static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + (i >>> 8));
        }
        return b;
    }

    static String sha256(InputStream in) throws IOException {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[65536];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
