package dev.tunnel.server.web;

import dev.tunnel.web.Routes;
import dev.tunnel.web.WebResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The dashboard: three small files in the jar (no framework, no CDN, works offline), read
 * once. The page learns the server's proxy types from its {@code data-types} attribute, so its
 * first render takes one round of API requests, all sent at once. {@code /} redirects to {@code /static/} as frp's does. The page polls the REST API and
 * draws the traffic chart itself (SVG). Its Content-Security-Policy allows only this origin.
 */
final class Dashboard {
    private static final String TYPES_PLACEHOLDER = "data-types=\"\"";
    private static final String CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

    private Dashboard() {
    }

    /** Serves the dashboard; {@code types} are the proxy types whose lists the page asks for. */
    static void addTo(Routes routes, List<String> types) {
        WebResponse index = withTypes(file("index.html", "text/html; charset=utf-8"), types);
        WebResponse script = file("app.js", "text/javascript; charset=utf-8");
        WebResponse style = file("app.css", "text/css; charset=utf-8");
        routes.get("/", r -> WebResponse.redirect("/static/"))
                .get("/static/", r -> index)
                .get("/static/index.html", r -> index)
                .get("/static/app.js", r -> script)
                .get("/static/app.css", r -> style);
    }

    private static WebResponse withTypes(WebResponse index, List<String> types) {
        for (String type : types) {
            if (!type.matches("[a-z0-9_-]+")) {
                throw new IllegalArgumentException("proxy type name " + type + " cannot go into the dashboard page");
            }
        }
        String html = new String(index.body(), StandardCharsets.UTF_8);
        if (!html.contains(TYPES_PLACEHOLDER)) {
            throw new IllegalStateException("dashboard index.html has no " + TYPES_PLACEHOLDER);
        }
        byte[] body = html.replace(TYPES_PLACEHOLDER, "data-types=\"" + String.join(" ", types) + "\"")
                .getBytes(StandardCharsets.UTF_8);
        return new WebResponse(index.status(), index.contentType(), body, index.headers());
    }

    private static WebResponse file(String name, String contentType) {
        try (InputStream in = Dashboard.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("dashboard file " + name + " is missing from the jar");
            }
            return new WebResponse(HttpResponseStatus.OK, contentType, in.readAllBytes(),
                    Map.of("Content-Security-Policy", CSP));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
