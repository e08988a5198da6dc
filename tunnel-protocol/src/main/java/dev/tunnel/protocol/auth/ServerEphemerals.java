package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server's private exponents {@code b} with {@code g^b}, computed ahead on the
 * {@link PakeWorker} so that a PAKE hello is answered without a modular exponentiation
 * ({@code B = k·v + g^b} is then one multiplication). At most {@link #SIZE} wait; each is handed
 * out once ({@link #poll} removes it) and a take starts a refill in the background. Empty (at
 * start, or after a burst of logins), {@link #poll} returns null and the caller computes a fresh
 * one ({@link Ephemeral#fresh}).
 *
 * <p>Thread-safe: polled on event loops, refilled on a worker thread.
 */
public final class ServerEphemerals {
    /** Exponents kept ready: a burst of this many logins is answered at once. */
    public static final int SIZE = 8;

    private final ArrayBlockingQueue<Ephemeral> ready = new ArrayBlockingQueue<>(SIZE);
    private final AtomicBoolean refilling = new AtomicBoolean();
    private final Executor executor;

    ServerEphemerals(Executor executor) {
        this.executor = executor;
    }

    /** One login's {@code b} and {@code g^b}. Secret: {@link #toString()} leaves them out. */
    public static final class Ephemeral {
        final BigInteger b;
        final BigInteger gb;

        private Ephemeral(BigInteger b) {
            this.b = b;
            this.gb = PakeSuite.power(b);
        }

        /** A new {@code b} and {@code g^b} (slow: one exponentiation). */
        public static Ephemeral fresh() {
            return new Ephemeral(PakeSuite.privateExponent(PakeSuite.SERVER_EXPONENT_BITS));
        }

        @Override
        public String toString() {
            return "Ephemeral[hidden]";
        }
    }

    /** A precomputed exponent, never handed out before, or null when none is ready; starts a refill either way. */
    public Ephemeral poll() {
        Ephemeral e = ready.poll();
        refill();
        return e;
    }

    /**
     * Fills the pool in the background, one exponent per worker task so that logins' own
     * computations queued meanwhile do not wait behind a whole refill (a server with the PAKE
     * login calls this at start).
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
                    more = ready.offer(Ephemeral.fresh()) && ready.remainingCapacity() > 0;
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
}
