package dev.tunnel.protocol.auth;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A computation of a login (an elliptic-curve multiplication) offered to a helper thread
 * ({@link PakeWorker#helper()}) so that it can run on another core, which the thread that needs
 * it computes itself if no helper has started it: {@link #get} never waits for a helper that has
 * not run (a busy or saturated worker costs nothing but the unused offer), only for one that is
 * computing. Exactly one thread computes it.
 *
 * <p>Threading: {@link #offer} and {@link #get} on any thread; the helper's run and {@link #get}
 * claim the computation through an {@link AtomicBoolean}, and its result (or its exception)
 * passes through a {@link CompletableFuture}: nothing else is shared.
 */
final class Offered<T> {
    private final Supplier<T> computation;
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private volatile boolean byHelper;

    private Offered(Supplier<T> computation) {
        this.computation = computation;
    }

    /** Offers {@code computation} to {@code helper}, which may refuse it or run it late (then it does nothing). */
    static <T> Offered<T> offer(Supplier<T> computation, Executor helper) {
        Offered<T> offered = new Offered<>(computation);
        try {
            helper.execute(() -> offered.run(true));
        } catch (RejectedExecutionException e) {
            // the worker is saturated: get() computes it
        }
        return offered;
    }

    /**
     * The result: computed here unless a helper started it first, then awaited.
     *
     * @throws RuntimeException what the computation threw
     */
    T get() {
        run(false);
        try {
            return result.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /** Whether a helper computed it (meaningful once {@link #get} returned), for tests. */
    boolean byHelper() {
        return byHelper;
    }

    private void run(boolean helper) {
        if (!claimed.compareAndSet(false, true)) {
            return;
        }
        byHelper = helper;
        try {
            result.complete(computation.get());
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
    }
}
