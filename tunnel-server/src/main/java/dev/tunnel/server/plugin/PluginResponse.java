package dev.tunnel.server.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;

/**
 * A plugin's answer, frp's {@code {"reject", "reject_reason", "unchange", "content"}}: reject
 * with a reason, allow unchanged, or allow with {@code content} replacing the request's. Booleans
 * may come as JSON strings ({@code "unchange": "false"}, as frp's documentation writes one);
 * unknown fields are ignored, as Go does.
 *
 * @param content the replaced content when {@code unchange} is false, else null
 */
record PluginResponse(boolean reject, String rejectReason, boolean unchange, JsonNode content) {

    static final PluginResponse UNCHANGED = new PluginResponse(false, "", true, null);

    /**
     * Reads an answer body.
     *
     * @throws IOException when it is not such a JSON object, or allows a change without content
     */
    static PluginResponse parse(InputStream body) throws IOException {
        JsonNode root;
        try {
            root = PluginRequests.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new IOException("the answer is not JSON: " + firstLine(e.getMessage()));
        }
        if (root == null || !root.isObject()) {
            throw new IOException("the answer is not a JSON object");
        }
        boolean reject = bool(root, "reject");
        JsonNode reason = root.get("reject_reason");
        String rejectReason = reason == null || reason.isNull() ? "" : reason.asText();
        if (reject) {
            return new PluginResponse(true, rejectReason, true, null);
        }
        if (bool(root, "unchange")) {
            return UNCHANGED;
        }
        JsonNode content = root.get("content");
        if (content == null || content.isNull()) {
            throw new IOException("the answer allows a change (\"unchange\": false) but has no \"content\"");
        }
        return new PluginResponse(false, "", false, content);
    }

    private static boolean bool(JsonNode root, String field) throws IOException {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) {
            return false;
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isTextual() && (v.textValue().equals("true") || v.textValue().equals("false"))) {
            return v.textValue().equals("true");
        }
        throw new IOException("\"" + field + "\": " + v + " (expected: true or false)");
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
