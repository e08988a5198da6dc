package dev.tunnel.server;

import io.netty.util.concurrent.EventExecutor;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs an action over many items on one event loop, {@value #SIZE} items per task, so that the
 * other channels of the loop get their turns in between: a client closing tens of thousands of
 * proxies must not hold up the other sessions that share its loop.
 *
 * <p>Threading: call on {@code loop}; every batch and {@code then} run on it.
 */
final class Batches {
    static final int SIZE = 256;

    private Batches() {
    }

    /** Applies {@code action} to every item in order, then runs {@code then}. */
    static <T> void run(EventExecutor loop, List<T> items, Consumer<? super T> action, Runnable then) {
        runFrom(loop, items, 0, action, then);
    }

    private static <T> void runFrom(EventExecutor loop, List<T> items, int from, Consumer<? super T> action,
                                    Runnable then) {
        int end = Math.min(items.size(), from + SIZE);
        for (int i = from; i < end; i++) {
            action.accept(items.get(i));
        }
        if (end < items.size()) {
            loop.execute(() -> runFrom(loop, items, end, action, then));
        } else {
            then.run();
        }
    }
}
