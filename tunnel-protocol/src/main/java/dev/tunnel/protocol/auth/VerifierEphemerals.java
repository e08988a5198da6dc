package dev.tunnel.protocol.auth;

import dev.tunnel.protocol.auth.Ephemerals.Ephemeral;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.bouncycastle.math.ec.ECPoint;

/**
 * The server's scalars computed ahead per verifier: for each of one server's verifiers (its
 * accounts' and the one its decoys are made of) a pool of {@code y} with {@code y·P} and
 * {@code V = y·L} ({@link Ephemerals}), so that a login to that verifier computes neither on the
 * loop nor while the client waits: {@link PakeServer} then only adds {@code w0·N} for {@code Y} and
 * computes {@code Z}. A decoy ({@link TokenVerifier#decoy}) shares its base's {@code L}, so it takes
 * from its base's pool exactly as an account takes from its own: the same pool size, filled at
 * start ({@link #fillAll}) and refilled after each login ({@link #refill}). Each entry is handed
 * out once. An empty pool (a burst of logins to one verifier) or a verifier this server does not
 * pool gives a scalar of the shared pool ({@link PakeWorker#serverEphemerals()}) without {@code V},
 * which the login then computes ({@link PakeServer#prepare}).
 *
 * <h3>Memory</h3>
 * At most {@link #PER_VERIFIER} entries per verifier, and {@link #TOTAL} in all: with more
 * verifiers each pool holds fewer, down to one (a scalar and two points, about 0.5 KB, beside the
 * verifier's own comb table of {@code L}, about 5 KB).
 *
 * <p>Thread-safe: the map of pools is built in the constructor and only read afterwards; the pools
 * are taken from on event loops and filled on the worker.
 */
public final class VerifierEphemerals {
    /** Entries kept ready for one verifier: a burst of this many logins to it is answered at once. */
    public static final int PER_VERIFIER = 4;
    /** Entries kept ready for all verifiers together. */
    public static final int TOTAL = 64;

    /** By the verifier's {@code L}, the very point, which its decoys share. */
    private final Map<ECPoint, Ephemerals> pools = new IdentityHashMap<>();
    private final List<Ephemerals> order = new ArrayList<>();
    private final Executor executor;
    private final Ephemerals shared;

    VerifierEphemerals(Collection<TokenVerifier> verifiers, Executor executor, Ephemerals shared) {
        this.executor = executor;
        this.shared = shared;
        int size = capacity(verifiers.size());
        for (TokenVerifier v : verifiers) {
            if (!pools.containsKey(v.l())) {
                Ephemerals pool = new Ephemerals(executor, size, () -> Ephemeral.fresh(v));
                pools.put(v.l(), pool);
                order.add(pool);
            }
        }
    }

    /** Entries per verifier for {@code verifiers} of them: {@link #PER_VERIFIER}, fewer to stay within {@link #TOTAL}, at least one. */
    static int capacity(int verifiers) {
        return Math.max(1, Math.min(PER_VERIFIER, TOTAL / Math.max(1, verifiers)));
    }

    /**
     * A scalar for a login to {@code verifier}, never handed out before: with {@code V} from its
     * pool, or from the shared pool without it when that is empty.
     */
    public Ephemeral take(TokenVerifier verifier) {
        Ephemerals pool = pools.get(verifier.l());
        Ephemeral e = pool == null ? null : pool.poll();
        return e != null ? e : shared.take();
    }

    /** After a login to {@code verifier}: refills its pool (and the shared one) on the worker. */
    public void refill(TokenVerifier verifier) {
        Ephemerals pool = pools.get(verifier.l());
        if (pool != null) {
            pool.refill();
        }
        shared.refill();
    }

    /**
     * Fills every pool on the worker, one entry per task (a login's own computations queued
     * meanwhile wait for one entry at most), as the server starts.
     */
    public void fillAll() {
        shared.refill();
        fillFrom(0);
    }

    private void fillFrom(int first) {
        try {
            executor.execute(() -> {
                int i = first;
                while (i < order.size() && order.get(i).full()) {
                    i++;
                }
                if (i < order.size()) {
                    order.get(i).addOne();
                    fillFrom(i);
                }
            });
        } catch (RejectedExecutionException e) {
            // the worker is saturated with logins: each refills its verifier's pool after it
        }
    }

    /** Entries waiting for {@code verifier} (or the base it is a decoy of), for tests. */
    public int ready(TokenVerifier verifier) {
        Ephemerals pool = pools.get(verifier.l());
        return pool == null ? 0 : pool.ready();
    }
}
