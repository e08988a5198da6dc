package dev.tunnel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class LineBudgetTest {
    private final AtomicLong now = new AtomicLong();
    private final LineBudget budget = new LineBudget(100, 10, now::get);

    @Test
    void floodIsCutAfterTheBurstAndTheNextLineCountsWhatWasLeftOut() {
        for (int i = 0; i < 100; i++) {
            assertThat(budget.take()).as("line %d", i).isZero();
        }
        for (int i = 0; i < 500; i++) {
            assertThat(budget.take()).isEqualTo(-1);
        }
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100)); // one line's worth (100 per 10 s)
        assertThat(budget.take()).isEqualTo(500);
        assertThat(budget.take()).isEqualTo(-1);
    }

    @Test
    void refillsToTheBurstAndNoMore() {
        for (int i = 0; i < 100; i++) {
            budget.take();
        }
        now.addAndGet(TimeUnit.SECONDS.toNanos(60));
        int let = 0;
        while (budget.take() >= 0) {
            let++;
        }
        assertThat(let).isEqualTo(100);
    }
}
