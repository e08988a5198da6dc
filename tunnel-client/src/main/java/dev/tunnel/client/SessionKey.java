package dev.tunnel.client;

/**
 * A logged-in session as its further connections (pool work connections) prove
 * it: its id and what their proofs are keyed with, the token after a token login or the session
 * key after a PAKE login ({@link LoginExchange#proofKey()}). {@code key} is secret:
 * {@link #toString()} leaves it out. Immutable.
 */
record SessionKey(String id, String key) {
    @Override
    public String toString() {
        return "session " + id;
    }
}
