package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Private exponents with their powers of {@code g}, computed ahead on the {@link PakeWorker} so
 * that a login takes one without a modular exponentiation: the server's {@code b} with
 * {@code g^b} ({@code B = k·v + g^b} is then one multiplication), the client's {@code a} with
 * {@code A = g^a} (its hello then goes out as soon as TLS allows). At most {@code size} wait; each
 * is handed out once ({@link #poll} removes it). The caller refills ({@link #refill}) once the
 * login that took one is done, so the refill never competes for a core with that login's own
 * computations. Empty (at start, or after a burst of logins), {@link #poll} returns null and the
 * caller computes a fresh one ({@link Ephemeral#fresh}).
 *
 * <p>Thread-safe: polled on event loops, refilled on a worker thread.
 */
public final class Ephemerals {
    /** The server's exponents kept ready: a burst of this many logins is answered at once. */
    public static final int SERVER_SIZE = 8;
    /** The client's: one for the next login, one for a reconnect right behind it. */
    public static final int CLIENT_SIZE = 2;

    private final ArrayBlockingQueue<Ephemeral> ready;
    private final AtomicBoolean refilling = new AtomicBoolean();
    private final Executor executor;
    private final int bits;

    Ephemerals(Executor executor, int bits, int size) {
        this.executor = executor;
        this.bits = bits;
        this.ready = new ArrayBlockingQueue<>(size);
    }

    /** One login's private exponent {@code e} and {@code g^e}. Secret: {@link #toString()} leaves them out. */
    public static final class Ephemeral {
        final BigInteger exponent;
        final BigInteger power;

        private Ephemeral(BigInteger exponent) {
            this.exponent = exponent;
            this.power = PakeSuite.power(exponent);
        }

        /** A new exponent of {@code bits} bits and its power (slow: one exponentiation). */
        public static Ephemeral fresh(int bits) {
            return new Ephemeral(PakeSuite.privateExponent(bits));
        }

        @Override
        public String toString() {
            return "Ephemeral[hidden]";
        }
    }

    /** A precomputed exponent, never handed out before, or null when none is ready. */
    public Ephemeral poll() {
        return ready.poll();
    }

    /** {@link #poll}, or a fresh exponent computed here when none is ready (and a refill started). */
    public Ephemeral take() {
        Ephemeral e = poll();
        if (e != null) {
            return e;
        }
        refill();
        return Ephemeral.fresh(bits);
    }

    /**
     * Fills the pool in the background, one exponent per worker task so that logins' own
     * computations queued meanwhile do not wait behind a whole refill (a server or a client with
     * the PAKE login calls this at start, and after each login).
     */
    public void refill() {
        if (ready.remainingCapacity() > 0 && refilling.compareAndSet(false, true)) {
            submitOne();
        }
    }

    private void submitOne() {
        try {
            executor.execute(() -> {
                boolean more;
                try {
                    more = ready.offer(Ephemeral.fresh(bits)) && ready.remainingCapacity() > 0;
                } catch (RuntimeException e) {
                    more = false;
                }
                if (more) {
                    submitOne();
                } else {
                    refilling.set(false);
                }
            });
        } catch (RejectedExecutionException e) {
            refilling.set(false); // the worker is saturated with logins: they compute their own
        }
    }

    /** How many wait, for tests. */
    int ready() {
        return ready.size();
    }

    /** The bits of each exponent, for tests. */
    int bits() {
        return bits;
    }
}
