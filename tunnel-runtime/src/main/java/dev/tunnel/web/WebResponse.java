package dev.tunnel.web;

import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What an endpoint answers: a status, a content type and the whole body (API answers are small;
 * the dashboard's files are a few KB).
 *
 * @param headers extra response headers (e.g. {@code Location})
 */
public record WebResponse(HttpResponseStatus status, String contentType, byte[] body, Map<String, String> headers) {

    public static final String JSON = "application/json; charset=utf-8";
    public static final String TEXT = "text/plain; charset=utf-8";

    public static WebResponse json(byte[] body) {
        return new WebResponse(HttpResponseStatus.OK, JSON, body, Map.of());
    }

    public static WebResponse text(HttpResponseStatus status, String body) {
        return new WebResponse(status, TEXT, (body + "\n").getBytes(StandardCharsets.UTF_8), Map.of());
    }

    /** An empty 200, as frp answers reload and stop. */
    public static WebResponse ok() {
        return new WebResponse(HttpResponseStatus.OK, TEXT, new byte[0], Map.of());
    }

    public static WebResponse redirect(String location) {
        return new WebResponse(HttpResponseStatus.MOVED_PERMANENTLY, TEXT, new byte[0], Map.of("Location", location));
    }
}
