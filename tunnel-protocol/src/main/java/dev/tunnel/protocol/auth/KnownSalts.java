package dev.tunnel.protocol.auth;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The salt each of the few servers this process logged in to lately gave for a user and token,
 * so that the next login there sends its share {@code X} in the hello (RFC 9383's order: the
 * prover speaks first) and the server computes its {@code Z} and {@code V} while the client
 * computes its own. A server that answers with another salt (it restarted with a fresh random
 * one) gets a share from a fresh scalar after its challenge. At most {@link #SIZE} entries, least
 * recently used first out; the keys hold the token, so only in memory, never logged.
 *
 * <p>Thread-safe: one per process, used from event loops.
 */
final class KnownSalts {
    static final int SIZE = 8;

    private record Key(String server, String user, String token) {
        @Override
        public String toString() {
            return "Key[hidden]";
        }
    }

    private static final Map<Key, String> SALTS = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, String> eldest) {
            return size() > SIZE;
        }
    };

    private KnownSalts() {
    }

    /** The salt {@code server} last gave {@code user} with {@code token}, or null. */
    static String get(String server, String user, String token) {
        synchronized (SALTS) {
            return SALTS.get(new Key(server, user, token));
        }
    }

    static void put(String server, String user, String token, String salt) {
        synchronized (SALTS) {
            SALTS.put(new Key(server, user, token), salt);
        }
    }
}
