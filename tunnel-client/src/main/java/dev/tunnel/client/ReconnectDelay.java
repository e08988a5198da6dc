package dev.tunnel.client;

import java.util.concurrent.ThreadLocalRandom;

/**
 * When a server session connects again. A session that had been logged in and lost its
 * connection (the server restarted, the link dropped) tries again after 1 s, then every
 * {@value #PROMPT_SECONDS} s for the first {@value #PROMPT_PERIOD_SECONDS} s: a restarted server
 * is usually back within that time, and its paced handshakes take every client that comes, so
 * nobody sits out a long backoff while the server is idle. After that, and for a session that
 * never logged in, 1 s doubling to the limit. After a refused token, {@value #REFUSED_SECONDS} s.
 * Every delay gets ±20 % jitter, so that the clients of one server spread out.
 *
 * <p>Stateless: the session passes its own counts.
 */
final class ReconnectDelay {
    static final int PROMPT_SECONDS = 2;
    static final int PROMPT_PERIOD_SECONDS = 30;
    static final int REFUSED_SECONDS = 20;

    private ReconnectDelay() {
    }

    /**
     * The delay before the next attempt, without jitter.
     *
     * @param attempts      attempts since the last login (0 for the first)
     * @param refused       the last login was refused for a wrong token
     * @param sinceLostNanos time since a logged-in session was lost, or -1 when it never logged in
     * @param limitSeconds  the backoff limit
     */
    static int seconds(int attempts, boolean refused, long sinceLostNanos, int limitSeconds) {
        if (refused) {
            return REFUSED_SECONDS;
        }
        int doubling = Math.min(limitSeconds, 1 << Math.min(attempts, 5));
        boolean prompt = sinceLostNanos >= 0 && sinceLostNanos < PROMPT_PERIOD_SECONDS * 1_000_000_000L;
        return prompt ? Math.min(doubling, PROMPT_SECONDS) : doubling;
    }

    /** {@code seconds} in milliseconds, with ±20 % jitter. */
    static long jittered(int seconds) {
        return (long) (seconds * 1000 * ThreadLocalRandom.current().nextDouble(0.8, 1.2));
    }
}
