package dev.tunnel.server.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tunnel.protocol.Options;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A proxy's settings both ways between the {@code NEW_PROXY} {@link Options} (frp's config key
 * names) and the fields of frp's NewProxy message. Options with no NewProxy field (for instance
 * {@code transport.proxyProtocolVersion}, which frp handles on the client) are not sent and are
 * kept whatever the plugin answers.
 */
public final class NewProxyFields {

    private enum Kind { TEXT, PORT, LIST, MAP }

    /** One option key (a list's or map's stem) and its NewProxy field. */
    private record Field(String option, String json, Kind kind) {
        boolean covers(String key) {
            return switch (kind) {
                case TEXT, PORT -> key.equals(option);
                case LIST -> key.startsWith(option + "[");
                case MAP -> key.startsWith(option + ".");
            };
        }
    }

    private static final List<Field> FIELDS = List.of(
            new Field("remotePort", "remote_port", Kind.PORT),
            new Field("customDomains", "custom_domains", Kind.LIST),
            new Field("subdomain", "subdomain", Kind.TEXT),
            new Field("locations", "locations", Kind.LIST),
            new Field("httpUser", "http_user", Kind.TEXT),
            new Field("httpPassword", "http_pwd", Kind.TEXT),
            new Field("hostHeaderRewrite", "host_header_rewrite", Kind.TEXT),
            new Field("requestHeaders.set", "headers", Kind.MAP),
            new Field("responseHeaders.set", "response_headers", Kind.MAP),
            new Field("routeByHTTPUser", "route_by_http_user", Kind.TEXT),
            new Field("secretKey", "sk", Kind.TEXT),
            new Field("allowUsers", "allow_users", Kind.LIST),
            new Field("multiplexer", "multiplexer", Kind.TEXT),
            new Field("loadBalancer.group", "group", Kind.TEXT),
            new Field("loadBalancer.groupKey", "group_key", Kind.TEXT),
            new Field("transport.bandwidthLimit", "bandwidth_limit", Kind.TEXT),
            new Field("transport.bandwidthLimitMode", "bandwidth_limit_mode", Kind.TEXT),
            new Field("metadatas", "metas", Kind.MAP),
            new Field("annotations", "annotations", Kind.MAP));

    private NewProxyFields() {
    }

    /** Writes the settings in {@code options} that frp's NewProxy has, leaving out empty ones. */
    static void write(Options options, ObjectNode content) {
        for (Field f : FIELDS) {
            switch (f.kind) {
                case TEXT -> PluginRequests.putText(content, f.json, options.string(f.option, ""));
                case PORT -> {
                    String port = options.string(f.option, "");
                    if (!port.isEmpty() && !port.equals("0")) {
                        try {
                            content.put(f.json, Integer.parseInt(port));
                        } catch (NumberFormatException e) {
                            content.put(f.json, port); // the proxy type refuses it with the reason
                        }
                    }
                }
                case LIST -> {
                    List<String> list = options.list(f.option);
                    if (!list.isEmpty()) {
                        list.forEach(content.putArray(f.json)::add);
                    }
                }
                case MAP -> PluginRequests.putMap(content, f.json, options.map(f.option));
            }
        }
    }

    /**
     * The settings a plugin's replaced content stands for: as frp, the content replaces the
     * request, so a field it leaves out is unset; options frp's NewProxy has no field for stay.
     * A content that renames the proxy or changes its type is refused.
     *
     * @throws PluginException.BadContent naming the field that is wrong
     */
    public static Options apply(JsonNode content, String proxyName, String proxyType, Options original)
            throws PluginException.BadContent {
        if (!content.isObject()) {
            throw new PluginException.BadContent("content is not an object");
        }
        unchanged(content, "proxy_name", proxyName);
        unchanged(content, "proxy_type", proxyType);
        Options.Builder out = Options.builder();
        original.asMap().forEach((key, value) -> {
            if (FIELDS.stream().noneMatch(f -> f.covers(key))) {
                out.put(key, value);
            }
        });
        try {
            for (Field f : FIELDS) {
                JsonNode v = content.get(f.json);
                if (v == null || v.isNull()) {
                    continue;
                }
                switch (f.kind) {
                    case TEXT -> {
                        String text = text(f.json, v);
                        if (!text.isEmpty()) {
                            out.put(f.option, text);
                        }
                    }
                    case PORT -> {
                        if (!v.canConvertToInt() || !v.isIntegralNumber() || v.intValue() < 0 || v.intValue() > 65535) {
                            throw new PluginException.BadContent(f.json + ": " + v + " (expected: an integer 0-65535)");
                        }
                        if (v.intValue() != 0) {
                            out.put(f.option, v.intValue());
                        }
                    }
                    case LIST -> out.putList(f.option, list(f.json, v));
                    case MAP -> out.putMap(f.option, map(f.json, v));
                }
            }
            return out.build();
        } catch (IllegalArgumentException e) {
            throw new PluginException.BadContent(e.getMessage());
        }
    }

    private static void unchanged(JsonNode content, String field, String value) throws PluginException.BadContent {
        JsonNode v = content.get(field);
        if (v != null && !v.isNull() && !(v.isTextual() && (v.textValue().equals(value) || v.textValue().isEmpty()))) {
            throw new PluginException.BadContent(field + " changed from \"" + value + "\" to " + v
                    + " (a plugin may change a proxy's settings, not its name or type)");
        }
    }

    private static String text(String field, JsonNode v) throws PluginException.BadContent {
        if (!v.isTextual()) {
            throw new PluginException.BadContent(field + ": " + v + " (expected: a string)");
        }
        return v.textValue();
    }

    private static List<String> list(String field, JsonNode v) throws PluginException.BadContent {
        if (!v.isArray()) {
            throw new PluginException.BadContent(field + ": " + v + " (expected: a list of strings)");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode item : v) {
            out.add(text(field + "[" + out.size() + "]", item));
        }
        return out;
    }

    static Map<String, String> map(String field, JsonNode v) throws PluginException.BadContent {
        if (!v.isObject()) {
            throw new PluginException.BadContent(field + ": " + v + " (expected: an object of strings)");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : v.properties()) {
            out.put(e.getKey(), text(field + "." + e.getKey(), e.getValue()));
        }
        return out;
    }
}
