package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The base delay and the queueing delay from ping samples, on a simulated clock. */
@Timeout(10)
class PathDelayTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void theQueueIsTheLatestSampleAboveTheSmallest() {
        PathDelay delay = new PathDelay();
        assertThat(delay.minRttNanos()).isZero();
        assertThat(delay.queueDelayNanos()).isZero();
        delay.onSample(80 * MS, 0);
        delay.onSample(120 * MS, MS);
        assertThat(delay.minRttNanos()).isEqualTo(80 * MS);
        assertThat(delay.queueDelayNanos()).isEqualTo(40 * MS);
        assertThat(delay.samples()).isEqualTo(2);
    }

    /** A route that got longer: the old minimum is forgotten after the base delay's history. */
    @Test
    void aLongerPathRaisesTheBaseDelayWithinItsHistory() {
        PathDelay delay = new PathDelay();
        long now = 0;
        delay.onSample(20 * MS, now);
        for (int second = 1; second <= 60 * PathDelay.BASE_HISTORY + 60; second++) {
            now = second * 1000 * MS;
            delay.onSample(80 * MS, now);
            if (second < 60 * (PathDelay.BASE_HISTORY - 1)) {
                assertThat(delay.minRttNanos()).as("second %d", second).isEqualTo(20 * MS);
            }
        }
        assertThat(delay.minRttNanos()).isEqualTo(80 * MS);
        assertThat(delay.queueDelayNanos()).isZero();
    }
}
