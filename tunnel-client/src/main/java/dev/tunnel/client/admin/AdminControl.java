package dev.tunnel.client.admin;

import java.util.List;

/** What the admin API may see and do on the running client. Methods may be called from any thread. */
public interface AdminControl {

    /** One proxy as {@code GET /api/status} lists it (frp's field meanings). */
    record ProxyState(String name, String type, String status, String error, String localAddr, String plugin,
                      String remoteAddr) {
    }

    /** Every configured proxy, in config order. */
    List<ProxyState> status();

    /**
     * One server's session as {@code GET /api/servers} lists it.
     *
     * @param since when it entered {@code state}, ISO-8601 UTC
     */
    record ServerState(String addr, String state, String since, String error) {
    }

    /** Every server's session, in config order. */
    default List<ServerState> servers() {
        return List.of();
    }

    /** Stops the client (gracefully, as on SIGTERM); returns at once. */
    void stop();

    /** Hot reload of the config file, where the client can apply one. */
    interface Reload {
        /**
         * Re-reads the config file and applies what changed. Returns a one-line summary; throws
         * {@link ReloadException} (nothing changed) when the new file is invalid.
         */
        String reload() throws ReloadException;
    }

    /** The new config is invalid: its errors, one per line. */
    final class ReloadException extends Exception {
        public ReloadException(String message) {
            super(message);
        }
    }
}
