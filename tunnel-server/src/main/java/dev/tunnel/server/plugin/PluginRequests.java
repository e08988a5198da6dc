package dev.tunnel.server.plugin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tunnel.protocol.ControlMessage.Login;
import dev.tunnel.protocol.Options;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;

/**
 * The bodies the server sends to plugins: {@code {"version": "0.1.0", "op": OP, "content": {...}}}
 * with frp's field names in each op's content ({@code pkg/plugin/server/types.go} and
 * {@code pkg/msg/msg.go}). As frp's {@code omitempty}, empty strings, zero numbers and empty
 * lists and maps are left out of the login and proxy fields; {@code user} always has its three.
 *
 * <p>frp's {@code privilege_key} (an MD5 of the token and a timestamp) is never sent: a tunnel
 * login is a proof bound to the server's nonce and TLS certificate, checked before any plugin
 * is called, so there is nothing a plugin could check it against.
 */
public final class PluginRequests {
    /** The {@code version} of frp's plugin API that these bodies follow. */
    public static final String API_VERSION = "0.1.0";

    static final ObjectMapper MAPPER = new ObjectMapper();

    private PluginRequests() {
    }

    /** The request body for {@code op} with {@code content}. */
    static byte[] body(PluginOp op, JsonNode content) {
        ObjectNode request = MAPPER.createObjectNode();
        request.put("version", API_VERSION);
        request.put("op", op.wireName());
        request.set("content", content);
        try {
            return MAPPER.writeValueAsBytes(request);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a tree of strings and numbers", e);
        }
    }

    /**
     * Login's content: the client's version, hostname, user, timestamp (seconds), run id, client
     * id, metas and pool count as it sent them, and {@code client_address}, the address it
     * connected from ({@code ip:port}).
     */
    public static ObjectNode login(Login login, SocketAddress clientAddress) {
        ObjectNode c = MAPPER.createObjectNode();
        putText(c, "version", login.clientVersion());
        putText(c, "hostname", login.hostname());
        putText(c, "user", login.user());
        if (login.timestampMillis() / 1000 != 0) {
            c.put("timestamp", login.timestampMillis() / 1000);
        }
        putText(c, "run_id", login.runId());
        putText(c, "client_id", login.options().string("clientID", ""));
        putMap(c, "metas", login.options().map("metadatas"));
        if (login.poolCount() != 0) {
            c.put("pool_count", login.poolCount());
        }
        putText(c, "client_address", address(clientAddress));
        return c;
    }

    /** NewProxy's content: {@code user}, the proxy's name and type and its settings ({@link NewProxyFields}). */
    public static ObjectNode newProxy(UserInfo user, String proxyName, String proxyType, Options options) {
        ObjectNode c = MAPPER.createObjectNode();
        user.writeTo(c);
        putText(c, "proxy_name", proxyName);
        putText(c, "proxy_type", proxyType);
        NewProxyFields.write(options, c);
        return c;
    }

    /** CloseProxy's content: {@code user} and {@code proxy_name}. */
    public static ObjectNode closeProxy(UserInfo user, String proxyName) {
        ObjectNode c = MAPPER.createObjectNode();
        user.writeTo(c);
        putText(c, "proxy_name", proxyName);
        return c;
    }

    /** Ping's content: {@code user} and the heartbeat's {@code timestamp} (seconds). */
    public static ObjectNode ping(UserInfo user, long timestampSeconds) {
        ObjectNode c = MAPPER.createObjectNode();
        user.writeTo(c);
        c.put("timestamp", timestampSeconds);
        return c;
    }

    /** NewWorkConn's content: {@code user}, the session's {@code run_id} and the connection's {@code timestamp} (seconds). */
    public static ObjectNode newWorkConn(UserInfo user, long timestampSeconds) {
        ObjectNode c = MAPPER.createObjectNode();
        user.writeTo(c);
        putText(c, "run_id", user.runId());
        if (timestampSeconds != 0) {
            c.put("timestamp", timestampSeconds);
        }
        return c;
    }

    /** NewUserConn's content: {@code user}, the proxy's name and type and the public connection's {@code remote_addr}. */
    public static ObjectNode newUserConn(UserInfo user, String proxyName, String proxyType, SocketAddress remote) {
        ObjectNode c = MAPPER.createObjectNode();
        user.writeTo(c);
        c.put("proxy_name", proxyName);
        c.put("proxy_type", proxyType);
        c.put("remote_addr", address(remote));
        return c;
    }

    /** An address as Go prints one: {@code 1.2.3.4:80}, {@code [::1]:80}. */
    static String address(SocketAddress address) {
        if (address instanceof InetSocketAddress a) {
            String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
            int zone = host.indexOf('%');
            if (zone >= 0) {
                host = host.substring(0, zone);
            }
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
        }
        return address == null ? "" : address.toString();
    }

    static void putText(ObjectNode node, String field, String value) {
        if (value != null && !value.isEmpty()) {
            node.put(field, value);
        }
    }

    static void putMap(ObjectNode node, String field, Map<String, String> map) {
        if (!map.isEmpty()) {
            ObjectNode m = node.putObject(field);
            map.forEach(m::put);
        }
    }
}
