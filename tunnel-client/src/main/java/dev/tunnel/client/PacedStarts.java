package dev.tunnel.client;

import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Starts work (a connect, say) at most {@code perTurn} at a time per event-loop turn, in the order
 * submitted, so that a burst does not hold the loop away from its other channels. The first
 * {@code perTurn} of a turn start at once, inside {@link #submit} (no added latency in the usual
 * case); the rest wait in a queue and start {@code perTurn} per round of tasks, each round
 * scheduled with no delay, which the loop fetches only after its next turn of I/O. A queued item
 * no longer wanted when its turn comes (its stream was reset, say) is dropped without counting.
 *
 * <p>Threading: every method runs on {@code loop}.
 */
final class PacedStarts {

    /** Work to start, and whether it is still wanted when its turn comes. */
    private record Start(Runnable start, BooleanSupplier wanted) {
    }

    private final EventExecutor loop;
    private final int perTurn;
    private final ArrayDeque<Start> queue = new ArrayDeque<>();
    private final Runnable newTurn = this::newTurn;
    private final Runnable drain = this::drain;
    private int budget;
    private boolean newTurnArmed;
    private boolean drainArmed;

    PacedStarts(EventExecutor loop, int perTurn) {
        if (perTurn < 1) {
            throw new IllegalArgumentException("perTurn: " + perTurn + " (expected at least 1)");
        }
        this.loop = loop;
        this.perTurn = perTurn;
        this.budget = perTurn;
    }

    /** Runs {@code start} now or in a later turn; if later, only while {@code wanted} says so. */
    void submit(Runnable start, BooleanSupplier wanted) {
        assert loop.inEventLoop();
        if (queue.isEmpty() && budget > 0) {
            budget--;
            armNewTurn();
            start.run();
        } else {
            queue.add(new Start(start, wanted));
            armDrain();
        }
    }

    /** Items waiting for their turn. */
    int queued() {
        return queue.size();
    }

    /** The budget comes back in the round of tasks that follows the I/O that spent it. */
    private void armNewTurn() {
        if (!newTurnArmed) {
            newTurnArmed = true;
            loop.execute(newTurn);
        }
    }

    private void newTurn() {
        newTurnArmed = false;
        budget = perTurn;
    }

    private void armDrain() {
        if (!drainArmed) {
            drainArmed = true;
            loop.schedule(drain, 0, TimeUnit.NANOSECONDS);
        }
    }

    private void drain() {
        drainArmed = false;
        int n = perTurn;
        Start start;
        while (n > 0 && (start = queue.poll()) != null) {
            if (start.wanted().getAsBoolean()) {
                start.start().run();
                n--;
            }
        }
        if (!queue.isEmpty()) {
            armDrain();
        }
    }
}
