package dev.tunnel.server.plugin;

import java.util.Arrays;
import java.util.List;

/** The operations a server plugin may subscribe to ({@code ops}), with frp's names. */
public enum PluginOp {
    /** A client logs in; the plugin may change {@code user} and {@code metas}. */
    LOGIN("Login"),
    /** A client starts a proxy; the plugin may change its settings. */
    NEW_PROXY("NewProxy"),
    /** A proxy was closed; a notification, its answer changes nothing. */
    CLOSE_PROXY("CloseProxy"),
    /** A client's heartbeat arrived. */
    PING("Ping"),
    /** A pool-mode work connection arrived. */
    NEW_WORK_CONN("NewWorkConn"),
    /** A public connection arrived at a tcp proxy. */
    NEW_USER_CONN("NewUserConn");

    /** Every op's name, in frp's order (for error messages). */
    public static final List<String> NAMES = Arrays.stream(values()).map(PluginOp::wireName).toList();

    private final String wireName;

    PluginOp(String wireName) {
        this.wireName = wireName;
    }

    /** The name in {@code ops}, in the {@code op} query parameter and in the request body. */
    public String wireName() {
        return wireName;
    }

    /** The op named {@code name} (case-sensitive, as frp), or null. */
    public static PluginOp byName(String name) {
        for (PluginOp op : values()) {
            if (op.wireName.equals(name)) {
                return op;
            }
        }
        return null;
    }
}
