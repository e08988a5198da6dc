package dev.tunnel.web;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * One request as an endpoint sees it: already authenticated and checked for cross-site use.
 *
 * @param pathParams the {@code {name}} segments of the route, URL-decoded
 * @param query      query parameters, URL-decoded
 * @param body       the request body (at most {@link WebServer#MAX_BODY_BYTES})
 */
public record WebRequest(HttpMethod method, String path, Map<String, String> pathParams,
                         Map<String, List<String>> query, HttpHeaders headers, byte[] body) {

    public String param(String name) {
        return pathParams.get(name);
    }

    /** The first value of query parameter {@code name}, or null. */
    public String query(String name) {
        List<String> values = query.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
