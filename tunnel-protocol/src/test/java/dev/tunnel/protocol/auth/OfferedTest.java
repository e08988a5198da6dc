package dev.tunnel.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A computation offered to a helper thread: exactly one thread computes it, and the caller never waits for a helper that has not started. */
@Timeout(10)
class OfferedTest {
    private final AtomicInteger runs = new AtomicInteger();
    private final List<Runnable> queued = new ArrayList<>();

    @Test
    void aHelperThatHasNotStartedLeavesItToTheCallerAndLaterDoesNothing() {
        Offered<String> offered = Offered.offer(() -> "computed " + runs.incrementAndGet() + " by "
                + Thread.currentThread().getName(), queued::add);

        assertThat(offered.get()).isEqualTo("computed 1 by " + Thread.currentThread().getName());
        assertThat(offered.byHelper()).isFalse();
        queued.forEach(Runnable::run); // the worker comes to it late
        assertThat(runs).hasValue(1);
        assertThat(offered.get()).startsWith("computed 1");
    }

    @Test
    void theHelpersResultIsUsedWhenItRanFirst() {
        Offered<Integer> offered = Offered.offer(runs::incrementAndGet, Runnable::run);

        assertThat(runs).hasValue(1);
        assertThat(offered.get()).isEqualTo(1);
        assertThat(offered.byHelper()).isTrue();
        assertThat(runs).hasValue(1);
    }

    @Test
    void theCallerWaitsForAHelperThatIsComputing() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Offered<String> offered = Offered.offer(() -> {
            runs.incrementAndGet();
            started.countDown();
            await(release);
            return "the helper's";
        }, task -> new Thread(task, "helper").start());
        started.await(5, TimeUnit.SECONDS);

        CompletableFuture<String> got = CompletableFuture.supplyAsync(offered::get);
        assertThat(got).isNotDone();
        release.countDown();

        assertThat(got.get(5, TimeUnit.SECONDS)).isEqualTo("the helper's");
        assertThat(offered.byHelper()).isTrue();
        assertThat(runs).hasValue(1);
    }

    @Test
    void aSaturatedHelperThatRefusesCostsNothing() {
        Offered<Integer> offered = Offered.offer(runs::incrementAndGet, task -> {
            throw new RejectedExecutionException("full");
        });

        assertThat(offered.get()).isEqualTo(1);
        assertThat(offered.byHelper()).isFalse();
    }

    @Test
    void whatTheComputationThrowsReachesTheCallerWhicheverThreadRanIt() {
        Offered<String> onHelper = Offered.offer(() -> {
            throw new IllegalArgumentException("V is the identity");
        }, Runnable::run);
        Offered<String> onCaller = Offered.offer(() -> {
            throw new IllegalArgumentException("Z is the identity");
        }, queued::add);

        assertThatThrownBy(onHelper::get).isInstanceOf(IllegalArgumentException.class).hasMessage("V is the identity");
        assertThatThrownBy(onCaller::get).isInstanceOf(IllegalArgumentException.class).hasMessage("Z is the identity");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
