package dev.tunnel.protocol.auth;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.Collection;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Where the PAKE login's slow parts run (too long for an event loop that carries other sessions'
 * bytes): the client's PBKDF2 for an account it has not met, and the refills of {@link Ephemerals}
 * and {@link VerifierEphemerals};
 * and where a login offers a multiplication to run on another core ({@link #helper()}): at most
 * {@link #THREADS} daemon threads, and at most
 * {@link #MAX_QUEUED} computations waiting, so a flood of logins costs bounded memory and CPU; one
 * beyond is refused at once ({@link RejectedExecutionException} in the future). The answer comes
 * back on the event loop that asked.
 *
 * <p>Thread-safe: one per process.
 */
public final class PakeWorker {
    /** Computing threads: two at most, one on a one-core machine. */
    public static final int THREADS = Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));
    /** Computations waiting for a thread before new ones are refused. */
    public static final int MAX_QUEUED = 256;

    private static final PakeWorker SHARED = new PakeWorker(pool());

    private final Executor executor;
    private final Ephemerals serverEphemerals;
    private final Ephemerals clientEphemerals;

    private PakeWorker(Executor executor) {
        this.executor = executor;
        this.serverEphemerals = new Ephemerals(executor, Ephemerals.SERVER_SIZE);
        this.clientEphemerals = new Ephemerals(executor, Ephemerals.CLIENT_SIZE);
    }

    private static ThreadPoolExecutor pool() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(MAX_QUEUED), new DefaultThreadFactory("tunnel-pake", true));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    public static PakeWorker shared() {
        return SHARED;
    }

    /**
     * Runs each computation at once on the thread that submits it: for tests on an
     * {@code EmbeddedChannel}, whose loop counts every thread as its own.
     */
    public static PakeWorker inline() {
        return new PakeWorker(Runnable::run);
    }

    /**
     * The server's precomputed scalars {@code y} without {@code V}, shared by all verifiers: what a
     * login takes when its verifier's pool ({@link #verifierEphemerals}) is empty; refilled on this
     * worker (empty until the first refill).
     */
    public Ephemerals serverEphemerals() {
        return serverEphemerals;
    }

    /**
     * Pools of the server's scalars with {@code V} for each of {@code verifiers} (one server's
     * accounts' and its decoys' base), filled and refilled on this worker; empty until
     * {@link VerifierEphemerals#fillAll}. An empty one falls back on {@link #serverEphemerals()}.
     */
    public VerifierEphemerals verifierEphemerals(Collection<TokenVerifier> verifiers) {
        return new VerifierEphemerals(verifiers, executor, serverEphemerals);
    }

    /** The client's precomputed scalars {@code x}, refilled on this worker (empty until the first refill). */
    public Ephemerals clientEphemerals() {
        return clientEphemerals;
    }

    /**
     * Where a login offers a computation that its own thread also computes if no worker thread
     * has started it ({@link Offered}): a saturated worker refuses it at once
     * ({@link RejectedExecutionException}).
     */
    public Executor helper() {
        return executor;
    }

    /** Runs {@code task} on a worker thread; the future completes on {@code loop}. */
    public <T> Future<T> submit(EventExecutor loop, Callable<T> task) {
        Promise<T> promise = loop.newPromise();
        try {
            executor.execute(() -> {
                try {
                    promise.trySuccess(task.call());
                } catch (Throwable t) {
                    promise.tryFailure(t);
                }
            });
        } catch (RejectedExecutionException e) {
            promise.tryFailure(new RejectedExecutionException(MAX_QUEUED + " PAKE computations already wait"));
        }
        return promise;
    }
}
