package dev.tunnel.server.plugin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * The client a call is about, as frp's {@code user} object: {@code user}, {@code metas} (the
 * client's {@code metadatas}) and {@code run_id}. Sent in every op but Login, whose content has
 * these at its top level.
 */
public record UserInfo(String user, Map<String, String> metas, String runId) {

    public UserInfo {
        metas = Map.copyOf(metas);
    }

    /** Puts this as {@code "user": {...}} into {@code content}. */
    void writeTo(ObjectNode content) {
        ObjectNode node = content.putObject("user");
        node.put("user", user);
        ObjectNode m = node.putObject("metas");
        metas.forEach(m::put);
        node.put("run_id", runId);
    }
}
