package dev.tunnel.server.plugin;

/**
 * Why a plugin call did not let an operation through. {@link #getMessage()} is for the server's
 * log; {@link #clientMessage()} is what the client is told (frp's wording where it has one).
 */
public abstract sealed class PluginException extends Exception {

    private PluginException(String message) {
        super(message, null, false, false);
    }

    /** What the client is told. */
    public abstract String clientMessage();

    /** {@code cause} of a failed plugin future as a PluginException (anything else is a bug, told as a failure). */
    public static PluginException of(Throwable cause, PluginOp op) {
        return cause instanceof PluginException e ? e : new Failed("?", op, String.valueOf(cause));
    }

    /** The plugin answered {@code "reject": true}. */
    public static final class Rejected extends PluginException {
        private final String client;

        Rejected(String plugin, PluginOp op, String reason) {
            super("server plugin [" + plugin + "] rejected " + op.wireName() + ": " + reason);
            this.client = getMessage();
        }

        @Override
        public String clientMessage() {
            return client;
        }
    }

    /**
     * The call failed: no connection, a timeout, a status other than 200, an answer that is not
     * frp's JSON or whose content cannot be applied. The client gets frp's "send OP request to
     * plugin error" with the plugin's name; the log has the detail.
     */
    public static final class Failed extends PluginException {
        private final String client;

        Failed(String plugin, PluginOp op, String detail) {
            super("send " + op.wireName() + " request to plugin [" + plugin + "] error: " + detail);
            this.client = "send " + op.wireName() + " request to plugin [" + plugin + "] error";
        }

        @Override
        public String clientMessage() {
            return client;
        }
    }

    /** A plugin's replaced content that cannot be applied; becomes a {@link Failed} naming the plugin. */
    public static final class BadContent extends Exception {
        public BadContent(String message) {
            super(message, null, false, false);
        }
    }
}
