package dev.tunnel.client;

import java.time.Instant;

/**
 * One server's session as {@code status} and {@code /api/servers} show it.
 *
 * @param address   the server's {@code host:port}
 * @param state     where the session is
 * @param since     when it got there
 * @param lastError why the last connection failed or ended ("" if none has)
 */
public record ServerStatus(String address, State state, Instant since, String lastError) {

    /** Where a server's session is in its life. */
    public enum State {
        /** Not started (failover: a later server while an earlier one serves). */
        IDLE,
        CONNECTING,
        /** Logged in: its proxies take public connections there. */
        ONLINE,
        /** Lost; the next attempt is scheduled. */
        RETRY_WAIT,
        /** Leaving the server: its connections in flight finish, no new ones come. */
        DRAINING,
        /** Stopped for good (retired, or the client stops). */
        STOPPED
    }
}
