package dev.tunnel.protocol.auth;

import java.math.BigInteger;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.bouncycastle.math.ec.ECPoint;

/**
 * Secret scalars with their multiples of the base point, computed ahead on the
 * {@link PakeWorker} so that a login takes one ready: the server's {@code y} with {@code y·P}
 * ({@code Y = y·P + w0·N} is then one point addition), and for one verifier also with
 * {@code V = y·L} ({@link VerifierEphemerals}); the client's {@code x} with {@code x·P}
 * ({@code X = x·P + w0·M} likewise). At most {@code size} wait; each is handed out once
 * ({@link #poll} removes it). The caller refills ({@link #refill}) once the login that took one is
 * done, so the refill never competes for a core with that login's own computations. Empty (at
 * start, or after a burst of logins), {@link #take} computes a fresh one (a fixed-base
 * multiplication, well under a millisecond).
 *
 * <p>Thread-safe: polled on event loops, refilled on a worker thread.
 */
public final class Ephemerals {
    /** The server's scalars kept ready: a burst of this many logins is answered at once. */
    public static final int SERVER_SIZE = 8;
    /** The client's: one for the next login, one for a reconnect right behind it. */
    public static final int CLIENT_SIZE = 2;

    private final ArrayBlockingQueue<Ephemeral> ready;
    private final AtomicBoolean refilling = new AtomicBoolean();
    private final Executor executor;
    private final Supplier<Ephemeral> factory;

    Ephemerals(Executor executor, int size) {
        this(executor, size, Ephemeral::fresh);
    }

    /** A pool of what {@code factory} computes (on the worker, or by {@link #take} when none is ready). */
    Ephemerals(Executor executor, int size, Supplier<Ephemeral> factory) {
        this.executor = executor;
        this.ready = new ArrayBlockingQueue<>(size);
        this.factory = factory;
    }

    /**
     * One login's secret scalar {@code e} and {@code e·P}, and for the server possibly
     * {@code e·L} of one verifier. Secret: {@link #toString()} leaves them out.
     */
    public static final class Ephemeral {
        final BigInteger scalar;
        final ECPoint point;
        /** The {@code L} that {@link #timesL} is a multiple of, or null. */
        private final ECPoint l;
        private final ECPoint timesL;

        private Ephemeral(BigInteger scalar) {
            this(scalar, null);
        }

        private Ephemeral(BigInteger scalar, TokenVerifier verifier) {
            this.scalar = scalar;
            this.point = PakeSuite.base(scalar);
            this.l = verifier == null ? null : verifier.l();
            this.timesL = verifier == null ? null : verifier.timesL(scalar);
        }

        /** A new random scalar and its multiple of the base point. */
        public static Ephemeral fresh() {
            return new Ephemeral(PakeSuite.randomScalar());
        }

        /**
         * A new random scalar {@code y} with {@code y·P} and {@code V = y·L} of {@code verifier}
         * (two fixed-base multiplications), for the server's logins to that verifier and its decoys.
         */
        static Ephemeral fresh(TokenVerifier verifier) {
            return new Ephemeral(PakeSuite.randomScalar(), verifier);
        }

        /** A given scalar (RFC 9383's test vectors). */
        static Ephemeral of(BigInteger scalar) {
            return new Ephemeral(scalar);
        }

        /**
         * {@code e·L} when it was computed for {@code verifier}'s {@code L} (the very point: a decoy
         * shares its base's, {@link TokenVerifier#decoy}), else null.
         */
        ECPoint timesL(TokenVerifier verifier) {
            return l != null && l == verifier.l() ? timesL : null;
        }

        @Override
        public String toString() {
            return "Ephemeral[hidden]";
        }
    }

    /** A precomputed scalar, never handed out before, or null when none is ready. */
    public Ephemeral poll() {
        return ready.poll();
    }

    /** {@link #poll}, or a fresh scalar computed here when none is ready (and a refill started). */
    public Ephemeral take() {
        Ephemeral e = poll();
        if (e != null) {
            return e;
        }
        refill();
        return factory.get();
    }

    /**
     * Fills the pool in the background, one scalar per worker task so that logins' own
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
                    more = addOne() && ready.remainingCapacity() > 0;
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

    /** Computes one and adds it, on the calling thread; false when the pool was full. */
    boolean addOne() {
        return ready.remainingCapacity() > 0 && ready.offer(factory.get());
    }

    /** Whether as many wait as the pool holds. */
    boolean full() {
        return ready.remainingCapacity() == 0;
    }

    /** How many wait, for tests. */
    int ready() {
        return ready.size();
    }
}
