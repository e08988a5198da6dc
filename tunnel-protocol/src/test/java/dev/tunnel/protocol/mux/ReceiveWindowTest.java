package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Receive credit and auto-tuning, on a simulated clock. */
@Timeout(10)
class ReceiveWindowTest {
    private static final long T0 = 1_000_000_000L;
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long RTT = 20 * MS;
    private static final ReceiveWindow.Budget ANY = ReceiveWindow.UNLIMITED;

    @Test
    void creditGoesBackOnlyOnceASixteenthOfTheWindowIsConsumed() {
        ReceiveWindow w = new ReceiveWindow(16 * 1024, 16 * 1024, T0);
        assertThat(w.onReceived(16 * 1024)).isTrue();
        assertThat(w.available()).isZero();

        assertThat(w.onConsumed(1000, T0, 0, ANY)).isZero();
        assertThat(w.onConsumed(23, T0, 0, ANY)).isZero(); // 1023 consumed: still under a sixteenth
        assertThat(w.available()).isZero();
        assertThat(w.onConsumed(1, T0, 0, ANY)).isEqualTo(1024);
        assertThat(w.available()).isEqualTo(1024);
        assertThat(w.window()).isEqualTo(16 * 1024);
    }

    @Test
    void receivedButUnconsumedBytesNeverReturnCredit() {
        ReceiveWindow w = new ReceiveWindow(4096, 4096, T0);
        assertThat(w.onReceived(4096)).isTrue();
        assertThat(w.onReceived(1)).isFalse();
        assertThat(w.available()).isZero();
    }

    @Test
    void onReceivedRejectsMoreThanAvailableAndKeepsState() {
        ReceiveWindow w = new ReceiveWindow(2048, 2048, T0);
        assertThat(w.onReceived(2000)).isTrue();
        assertThat(w.onReceived(49)).isFalse();
        assertThat(w.available()).isEqualTo(48);
        assertThat(w.onReceived(48)).isTrue();
        assertThat(w.available()).isZero();
    }

    /** Drain rate x min RTT: 10 MB/s over a 100 ms path wants 1.5 MB (gain 1.5). */
    @Test
    void windowGrowsTowardDrainRateTimesMinRtt() {
        ReceiveWindow w = new ReceiveWindow(64 * 1024, 64 * 1024, 16 << 20, T0);
        long minRtt = 100 * MS;
        long now = T0;
        for (int i = 0; i < 2000; i++) {
            int chunk = w.window() / 16;
            assertThat(w.onReceived(chunk)).isTrue();
            now += chunk * 100L; // 10 bytes per microsecond = 10 MB/s
            w.onConsumed(chunk, now, minRtt, ANY);
        }
        assertThat(w.window()).isBetween(1_300_000, 1_700_000);
    }

    /**
     * The same consumer seen through a queue that doubles the RTT of pings: tuning uses the
     * path's minimum, so the window is the same as without the queue.
     */
    @Test
    void queueingDoesNotGrowTheWindow() {
        ReceiveWindow w = new ReceiveWindow(64 * 1024, 64 * 1024, 16 << 20, T0);
        long now = T0;
        for (int i = 0; i < 2000; i++) {
            int chunk = w.window() / 16;
            w.onReceived(chunk);
            now += chunk * 100L;
            w.onConsumed(chunk, now, 100 * MS, ANY); // the min RTT stays 100 ms while pings take 200
        }
        assertThat(w.window()).isLessThan(1_700_000);
    }

    @Test
    void noGrowthWithoutAnRttSample() {
        ReceiveWindow w = new ReceiveWindow(1024, 1 << 20, T0);
        for (int i = 0; i < 10; i++) {
            w.onReceived(512);
            assertThat(w.onConsumed(512, T0 + i, 0, ANY)).isEqualTo(512);
        }
        assertThat(w.window()).isEqualTo(1024);
    }

    @Test
    void growthIsWhatTheBudgetGrants() {
        int[] granted = {0};
        ReceiveWindow.Budget stingy = new ReceiveWindow.Budget() {
            @Override
            public int grant(ReceiveWindow window, int wanted) {
                int g = Math.min(wanted, 1000 - granted[0]);
                granted[0] += g;
                return g;
            }

            @Override
            public void release(int bytes) {
                granted[0] -= bytes;
            }
        };
        ReceiveWindow w = new ReceiveWindow(4096, 4096, 1 << 20, T0);
        drainFast(w, stingy);
        assertThat(w.window()).isEqualTo(4096 + 1000);
        assertThat(w.available()).isEqualTo(w.window());
    }

    /** A stream that drained fast and then slows to a trickle gives its window back as it consumes. */
    @Test
    void windowShrinksWhenTheStreamDrainsSlowly() {
        ReceiveWindow w = new ReceiveWindow(16 * 1024, 16 * 1024, 16 << 20, T0);
        long now = T0;
        for (int i = 0; i < 2000; i++) { // fast: 10 MB/s on a 100 ms path
            int chunk = w.window() / 16;
            w.onReceived(chunk);
            now += chunk * 100L;
            w.onConsumed(chunk, now, 100 * MS, ANY);
        }
        int big = w.window();
        assertThat(big).isGreaterThan(1_000_000);
        for (int i = 0; i < 2000; i++) { // then 100 KB/s
            int chunk = Math.max(1, w.window() / 16);
            w.onReceived(Math.min(chunk, w.available()));
            now += chunk * 10_000L;
            w.onConsumed(Math.min(chunk, w.available() + chunk), now, 100 * MS, ANY);
        }
        assertThat(w.window()).isLessThan(big / 20).isGreaterThanOrEqualTo(16 * 1024);
    }

    /** A UDP stream holds its window: a slow drain (or none) does not shrink it below the floor. */
    @Test
    void aHeldWindowGrowsAtOnceAndDoesNotShrinkBelowItsFloor() {
        ReceiveWindow w = new ReceiveWindow(16 * 1024, 16 * 1024, 16 << 20, T0);
        assertThat(w.raiseFloor(1 << 20, ANY)).isEqualTo((1 << 20) - 16 * 1024);
        assertThat(w.window()).isEqualTo(1 << 20);
        assertThat(w.available()).isEqualTo(1 << 20);
        long now = T0;
        for (int i = 0; i < 2000; i++) { // 100 KB/s on a 100 ms path: the target is 15 KB
            int chunk = w.window() / 16;
            w.onReceived(chunk);
            now += chunk * 10_000L;
            w.onConsumed(chunk, now, 100 * MS, ANY);
        }
        assertThat(w.window()).isEqualTo(1 << 20);
        assertThat(w.available()).isEqualTo(1 << 20);
    }

    @Test
    void aHeldWindowIsOnlyWhatTheBudgetGrants() {
        ReceiveWindow w = new ReceiveWindow(16 * 1024, 16 * 1024, 16 << 20, T0);
        ReceiveWindow.Budget stingy = new ReceiveWindow.Budget() {
            @Override
            public int grant(ReceiveWindow window, int wanted) {
                return Math.min(wanted, 1000);
            }

            @Override
            public void release(int bytes) {
            }
        };
        assertThat(w.raiseFloor(1 << 20, stingy)).isEqualTo(1000);
        assertThat(w.window()).isEqualTo(16 * 1024 + 1000);
    }

    @Test
    void growthStopsAtTheMaximum() {
        ReceiveWindow w = new ReceiveWindow(1024, 1024, 3000, T0);
        drainFast(w, ANY);
        assertThat(w.window()).isEqualTo(3000);
        assertThat(w.available()).isEqualTo(3000);
    }

    /** A consumer that takes a sixteenth of its window every millisecond for a second, on a 20 ms path. */
    private static void drainFast(ReceiveWindow w, ReceiveWindow.Budget budget) {
        long now = T0;
        for (int i = 0; i < 1000; i++) {
            int chunk = w.window() / 16;
            assertThat(w.onReceived(chunk)).isTrue();
            now += MS;
            w.onConsumed(chunk, now, RTT, budget);
        }
    }

    @Test
    void growOnOpenIsBoundedByTheBudgetAndTheMaximum() {
        ReceiveWindow w = new ReceiveWindow(1024, 1024, 3000, T0);
        assertThat(w.grow(10_000, ANY)).isEqualTo(3000 - 1024);
        assertThat(w.window()).isEqualTo(3000);
        assertThat(w.available()).isEqualTo(3000);
    }

    /** available + buffered + unacked == window under any mix of receive and consume. */
    @Test
    void invariantHoldsUnderRandomTraffic() {
        Random random = new Random(42);
        ReceiveWindow w = new ReceiveWindow(1024, 1024, 64 * 1024, T0);
        long now = T0;
        long buffered = 0;
        long peerCredit = w.available(); // what the sender believes it may send
        for (int step = 0; step < 20_000; step++) {
            now += random.nextInt(2) == 0 ? 1 : RTT;
            if (random.nextBoolean() && peerCredit > 0) {
                int n = 1 + random.nextInt((int) Math.min(peerCredit, 4096));
                assertThat(w.onReceived(n)).isTrue();
                peerCredit -= n;
                buffered += n;
            } else if (buffered > 0) {
                int n = 1 + random.nextInt((int) Math.min(buffered, 4096));
                buffered -= n;
                peerCredit += w.onConsumed(n, now, random.nextInt(4) == 0 ? 0 : RTT, ANY);
            }
            long unacked = w.window() - w.available() - buffered;
            assertThat(unacked).as("step %d", step).isBetween(0L, (long) w.window() / ReceiveWindow.UPDATE_FRACTION);
            assertThat(peerCredit).as("sender's view of credit, step %d", step).isEqualTo(w.available());
            assertThat(w.window()).isBetween(1024, 64 * 1024);
        }
    }
}
