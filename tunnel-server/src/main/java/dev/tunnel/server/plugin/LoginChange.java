package dev.tunnel.server.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * What the server takes from a Login plugin's replaced content: {@code user} and {@code metas}.
 * The other fields describe the client and its connection and are kept as the client sent them
 * (its run id, version, pool count); as frp, a field the content leaves out is empty, so a
 * content without {@code metas} clears them.
 */
public record LoginChange(String user, Map<String, String> metas) {

    public LoginChange {
        metas = Map.copyOf(metas);
    }

    /** @throws PluginException.BadContent when {@code user} or {@code metas} has the wrong JSON type */
    public static LoginChange of(JsonNode content) throws PluginException.BadContent {
        if (!content.isObject()) {
            throw new PluginException.BadContent("content is not an object");
        }
        JsonNode user = content.get("user");
        if (user != null && !user.isNull() && !user.isTextual()) {
            throw new PluginException.BadContent("user: " + user + " (expected: a string)");
        }
        JsonNode metas = content.get("metas");
        return new LoginChange(user == null || user.isNull() ? "" : user.textValue(),
                metas == null || metas.isNull() ? Map.of() : NewProxyFields.map("metas", metas));
    }
}
