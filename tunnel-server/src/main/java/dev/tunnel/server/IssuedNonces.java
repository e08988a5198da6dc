package dev.tunnel.server;

import dev.tunnel.protocol.auth.LoginProof;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The server nonces one pool-mode session handed out ahead in {@code REQ_WORK_CONN}
 * ({@link dev.tunnel.protocol.Capabilities#ISSUED_NONCES}), so that a work connection can prove
 * itself in its first flight instead of waiting for its own {@code CHALLENGE}. Each nonce opens
 * one work connection: {@link #take} removes it, so a recorded {@code NEW_WORK_CONN} cannot be
 * replayed; it expires {@link #LIFETIME_SECONDS} after it was issued, and at most
 * {@link #MAX_OUTSTANDING} are outstanding at a time. When that many are, {@link #issue} hands
 * out fewer than asked and the pool asks for the rest without nonces: those connections answer
 * their own challenge, one round trip later, so nothing waits for a nonce.
 *
 * <p>Threading: issued on the session's loop, taken on the loop of whichever worker accepted the
 * work connection; every method holds this object's lock, briefly.
 */
final class IssuedNonces {
    /**
     * How long an issued nonce stays good. A work connection is dialled when its request arrives
     * and must finish TLS within {@code transport.loginTimeout} (10 s by default) of its accept.
     */
    static final int LIFETIME_SECONDS = 30;
    /** The most nonces outstanding per session: bounds the memory a session's requests hold (~40 KB). */
    static final int MAX_OUTSTANDING = 256;

    /** What {@link #take} found. */
    enum Outcome {
        /** Issued to this session, not used before and not expired: now used. */
        VALID,
        /** Issued and not used, but older than {@link #LIFETIME_SECONDS}: now dropped. */
        EXPIRED,
        /** Never issued to this session, already used, or expired and dropped since. */
        UNKNOWN
    }

    private final LongSupplier nanoClock;
    private final long lifetimeNanos = TimeUnit.SECONDS.toNanos(LIFETIME_SECONDS);
    /** Nonce → when it was issued (nanos); in issue order, so the oldest come first. */
    private final Map<String, Long> outstanding = new LinkedHashMap<>();
    /** Nonces taken as {@link Outcome#VALID} so far: work connections that needed no challenge. */
    private long used;

    IssuedNonces() {
        this(System::nanoTime);
    }

    /** @param nanoClock {@link System#nanoTime} or a test's clock */
    IssuedNonces(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** Up to {@code wanted} fresh nonces, fewer once {@link #MAX_OUTSTANDING} are outstanding. */
    synchronized List<String> issue(int wanted) {
        long now = nanoClock.getAsLong();
        dropExpired(now);
        int n = Math.max(0, Math.min(wanted, MAX_OUTSTANDING - outstanding.size()));
        List<String> nonces = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String nonce = LoginProof.newNonce();
            outstanding.put(nonce, now);
            nonces.add(nonce);
        }
        return nonces;
    }

    /** Uses {@code nonce} once: {@link Outcome#VALID} only the first time, within its lifetime. */
    synchronized Outcome take(String nonce) {
        Long issued = outstanding.remove(nonce);
        if (issued == null) {
            return Outcome.UNKNOWN;
        }
        if (nanoClock.getAsLong() - issued > lifetimeNanos) {
            return Outcome.EXPIRED;
        }
        used++;
        return Outcome.VALID;
    }

    /** How many work connections proved themselves with a nonce of this session. */
    synchronized long used() {
        return used;
    }

    synchronized int outstanding() {
        return outstanding.size();
    }

    /** Forgets every nonce: the session ended. */
    synchronized void clear() {
        outstanding.clear();
    }

    private void dropExpired(long now) {
        for (Iterator<Long> it = outstanding.values().iterator(); it.hasNext(); ) {
            if (now - it.next() <= lifetimeNanos) {
                return; // issue order: the rest are younger
            }
            it.remove();
        }
    }
}
