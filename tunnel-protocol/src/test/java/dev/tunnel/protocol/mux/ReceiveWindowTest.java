package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Receive credit and delay-based window control, on a simulated clock with synthetic RTT samples. */
@Timeout(10)
class ReceiveWindowTest {
    private static final long T0 = 1_000_000_000L;
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long RTT = 20 * MS;
    private static final ReceiveWindow.Budget ANY = ReceiveWindow.UNLIMITED;
    /** A session whose pings have not come back yet. */
    private static final PathDelay NO_RTT = new PathDelay();

    @Test
    void creditGoesBackOnlyOnceASixteenthOfTheWindowIsConsumed() {
        ReceiveWindow w = new ReceiveWindow(16 * 1024, 16 * 1024, T0);
        assertThat(w.onReceived(16 * 1024)).isTrue();
        assertThat(w.available()).isZero();

        assertThat(w.onConsumed(1000, T0, NO_RTT, ANY)).isZero();
        assertThat(w.onConsumed(23, T0, NO_RTT, ANY)).isZero(); // 1023 consumed: still under a sixteenth
        assertThat(w.available()).isZero();
        assertThat(w.onConsumed(1, T0, NO_RTT, ANY)).isEqualTo(1024);
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

    /**
     * A consumer limited by the window (it takes a window per round trip) on a path without a
     * queue: the rate grows with the window, so the window grows, up to its maximum.
     */
    @Test
    void aWindowGrowsWhileTheRateGrowsWithIt() {
        ReceiveWindow w = new ReceiveWindow(64 * 1024, 64 * 1024, 16 << 20, T0);
        PathDelay delay = path(100 * MS);
        long now = T0;
        int before = w.window();
        for (int round = 0; round < 30; round++) {
            now = round(w, delay, now, 100 * MS, w.window(), 100 * MS);
            assertThat(w.window()).as("round %d", round).isGreaterThanOrEqualTo(before);
            before = w.window();
        }
        assertThat(w.window()).isEqualTo(16 << 20);
    }

    /** A consumer that takes 1 MB/s whatever its window: the window stays near what that rate needs. */
    @Test
    void aStreamThatDoesNotUseItsWindowDoesNotGrowIt() {
        ReceiveWindow w = new ReceiveWindow(16 * 1024, 16 * 1024, 16 << 20, T0);
        PathDelay delay = path(100 * MS);
        long now = T0;
        for (int round = 0; round < 50; round++) {
            now = round(w, delay, now, 100 * MS, 100_000, 100 * MS);
        }
        // 1 MB/s x 100 ms = 100 KB; at most the largest gain times that
        assertThat(w.window()).isBetween(100_000, (int) (WindowGain.MAX * 100_000) + 16 * 1024);
    }

    /**
     * A consumer slower than the path leaves it without a queue; that says nothing about the
     * gain, which holds, so that the session's next fast download does not start with windows
     * far beyond what it needs.
     */
    @Test
    void aConsumerSlowerThanThePathLeavesTheSessionsGainAlone() {
        ReceiveWindow w = new ReceiveWindow(16 * 1024, 16 * 1024, 16 << 20, T0);
        PathDelay delay = path(100 * MS);
        long now = T0;
        for (int round = 0; round < 50; round++) {
            now = round(w, delay, now, 100 * MS, 100_000, 100 * MS);
        }
        assertThat(delay.gain().gain()).isEqualTo(WindowGain.START);
    }

    /** A stream that fills its window every round, at a rate that no longer grows, on a path without a queue: the gain grows. */
    @Test
    void aStreamBoundByItsWindowOnAnEmptyPathGrowsTheGain() {
        ReceiveWindow w = new ReceiveWindow(1 << 20, 1 << 20, 1 << 20, T0);
        PathDelay delay = path(100 * MS);
        long now = T0;
        for (int round = 0; round < 10; round++) {
            now = round(w, delay, now, 100 * MS, w.window(), 100 * MS);
        }
        assertThat(delay.gain().gain()).isGreaterThan(WindowGain.START);
    }

    /**
     * A stream opened a round trip and more before its first byte (a public connection whose app
     * answers later): the wait is no round of a slow consumer, so the first window of bytes gets
     * all its credit back, and the round it starts sizes the window by their rate.
     */
    @Test
    void theWaitBeforeAStreamsFirstByteDoesNotTakeItsStartWindowBack() {
        ReceiveWindow w = new ReceiveWindow(32 * 1024, 32 * 1024, 16 << 20, T0);
        w.grow(224 * 1024, ANY);
        PathDelay delay = path(100 * MS);
        long now = T0 + 300 * MS;
        int credit = 0;
        for (int i = 0; i < 16; i++) { // the start window, in the 10 ms its bytes take to arrive
            now += MS;
            assertThat(w.onReceived(16 * 1024)).isTrue();
            credit += w.onConsumed(16 * 1024, now, delay, ANY);
        }
        assertThat(credit).as("credit for the first window").isEqualTo(256 * 1024);
        assertThat(w.window()).isEqualTo(256 * 1024);

        now = round(w, delay, now, 100 * MS, w.window(), 100 * MS);
        now = round(w, delay, now, 100 * MS, w.window(), 100 * MS);
        assertThat(w.window()).as("a window's worth per round trip: it grows").isGreaterThan(256 * 1024);
    }

    /** A window of 4 MiB for a stream that gets 10 MB/s on a 100 ms path: it shrinks to at most the largest gain x rate x min RTT. */
    @Test
    void aWindowLargerThanItsRateNeedsShrinksToGainTimesRateTimesMinRtt() {
        ReceiveWindow w = new ReceiveWindow(16 * 1024, 16 * 1024, 16 << 20, T0);
        w.grow(4 << 20, ANY);
        PathDelay delay = path(100 * MS);
        long now = T0;
        for (int round = 0; round < 20; round++) {
            now = round(w, delay, now, 100 * MS, 1_000_000, 100 * MS);
        }
        assertThat(w.window()).isBetween(1_000_000, (int) (WindowGain.MAX * 1_000_000) + 1);
    }

    /** A queue that is not this stream's and a trickle of a rate: the window stops at its floor. */
    @Test
    void aWindowNeverShrinksBelowItsFloor() {
        ReceiveWindow w = new ReceiveWindow(64 * 1024, 32 * 1024, 16 << 20, T0);
        w.grow(1 << 20, ANY);
        PathDelay delay = path(100 * MS);
        long now = T0;
        for (int round = 0; round < 100; round++) {
            now = round(w, delay, now, 100 * MS, 20_000, 400 * MS);
            assertThat(w.window()).isGreaterThanOrEqualTo(32 * 1024);
        }
        assertThat(w.window()).isEqualTo(32 * 1024);
    }

    /**
     * Pings that wait 200 ms in a queue take the gain to its minimum: the window shrinks to what
     * the rate needs over the base delay (10 MB/s x 100 ms), and not below it.
     */
    @Test
    void aStandingQueueShrinksTheWindowToRateTimesBaseDelayAndNoFurther() {
        ReceiveWindow w = new ReceiveWindow(16 * 1024, 16 * 1024, 16 << 20, T0);
        w.grow(1_500_000 - 16 * 1024, ANY);
        PathDelay delay = path(100 * MS);
        long now = T0;
        for (int round = 0; round < 20; round++) {
            now = round(w, delay, now, 100 * MS, 1_000_000, 300 * MS);
        }
        assertThat(delay.gain().gain()).isEqualTo(WindowGain.MIN);
        assertThat(w.window()).isBetween((int) (WindowGain.MIN * 1_000_000) - 16 * 1024, (int) (WindowGain.MIN * 1_050_000));
    }

    @Test
    void noGrowthWithoutAnRttSample() {
        ReceiveWindow w = new ReceiveWindow(1024, 1 << 20, T0);
        for (int i = 0; i < 10; i++) {
            w.onReceived(512);
            assertThat(w.onConsumed(512, T0 + i, NO_RTT, ANY)).isEqualTo(512);
        }
        assertThat(w.window()).isEqualTo(1024);
    }

    /** A squeezed window goes down to {@link ReceiveWindow#SQUEEZED_WINDOW} as bytes are consumed, below its floor, and does not grow. */
    @Test
    void aSqueezedWindowShrinksToTheSqueezedSizeAndGrowsAgainOnceReleased() {
        ReceiveWindow w = new ReceiveWindow(32 * 1024, 32 * 1024, 16 << 20, T0);
        w.grow(256 * 1024 - 32 * 1024, ANY);
        assertThat(w.onReceived(200 * 1024)).isTrue();
        w.squeeze();
        assertThat(w.grow(64 * 1024, ANY)).isZero();
        PathDelay delay = path(100 * MS);
        long now = T0;
        int buffered = 200 * 1024;
        for (int i = 0; i < 1000 && buffered > 0; i++) { // the reader reads what the sender's credit lets arrive
            now += MS;
            w.onConsumed(1024, now, delay, ANY);
            buffered -= 1024;
            int arriving = Math.min(1024, w.available());
            assertThat(w.onReceived(arriving)).isTrue();
            buffered += arriving;
            if (i % 10 == 0) {
                delay.onSample(100 * MS, now);
            }
        }
        assertThat(w.window()).isEqualTo(ReceiveWindow.SQUEEZED_WINDOW);
        assertThat(w.available() + w.buffered()).isLessThanOrEqualTo(ReceiveWindow.SQUEEZED_WINDOW);

        w.onConsumed(w.buffered(), now, delay, ANY); // the reader catches up

        w.unsqueeze();
        now = T0 + 1000 * MS;
        for (int round = 0; round < 20; round++) {
            now = round(w, delay, now, 100 * MS, w.window(), 100 * MS);
        }
        assertThat(w.window()).isGreaterThan(256 * 1024);
    }

    /**
     * One round trip of {@code rtt}: the consumer takes {@code bytes} (as far as the credit
     * lets them arrive) in sixteen even steps, and the round ends with a ping of {@code sampleRtt}.
     * Returns the time at its end.
     */
    private static long round(ReceiveWindow w, PathDelay delay, long now, long rtt, int bytes, long sampleRtt) {
        int chunk = Math.max(1, bytes / 16);
        for (int step = 0; step < 16; step++) {
            now += rtt / 16;
            int n = Math.min(chunk, w.available());
            if (n > 0) {
                assertThat(w.onReceived(n)).isTrue();
                w.onConsumed(n, now, delay, ANY);
            }
        }
        delay.onSample(sampleRtt, now);
        return now;
    }

    private static PathDelay path(long minRtt) {
        PathDelay delay = new PathDelay();
        delay.onSample(minRtt, T0);
        return delay;
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

    /** A UDP stream holds its window: a slow drain (or none) does not shrink it below the floor. */
    @Test
    void aHeldWindowGrowsAtOnceAndDoesNotShrinkBelowItsFloor() {
        ReceiveWindow w = new ReceiveWindow(16 * 1024, 16 * 1024, 16 << 20, T0);
        assertThat(w.raiseFloor(1 << 20, ANY)).isEqualTo((1 << 20) - 16 * 1024);
        assertThat(w.window()).isEqualTo(1 << 20);
        assertThat(w.available()).isEqualTo(1 << 20);
        PathDelay delay = path(100 * MS);
        long now = T0;
        for (int i = 0; i < 2000; i++) { // 100 KB/s on a 100 ms path, behind a queue: it would shrink to 11 KB
            int chunk = w.window() / 16;
            w.onReceived(chunk);
            now += chunk * 10_000L;
            w.onConsumed(chunk, now, delay, ANY);
            delay.onSample(200 * MS, now);
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

    /**
     * A consumer that takes a sixteenth of its window every millisecond for a second, on a 20 ms
     * path without a queue, pinged every millisecond.
     */
    private static void drainFast(ReceiveWindow w, ReceiveWindow.Budget budget) {
        PathDelay delay = path(RTT);
        long now = T0;
        for (int i = 0; i < 1000; i++) {
            int chunk = w.window() / 16;
            assertThat(w.onReceived(chunk)).isTrue();
            now += MS;
            w.onConsumed(chunk, now, delay, budget);
            delay.onSample(RTT, now);
        }
    }

    @Test
    void growOnOpenIsBoundedByTheBudgetAndTheMaximum() {
        ReceiveWindow w = new ReceiveWindow(1024, 1024, 3000, T0);
        assertThat(w.grow(10_000, ANY)).isEqualTo(3000 - 1024);
        assertThat(w.window()).isEqualTo(3000);
        assertThat(w.available()).isEqualTo(3000);
    }

    /**
     * available + buffered + unacked == window under any mix of receive and consume, queueing
     * delay and squeezing; the window stays between its floor and its maximum.
     */
    @Test
    void invariantHoldsUnderRandomTraffic() {
        Random random = new Random(42);
        ReceiveWindow w = new ReceiveWindow(1024, 1024, 64 * 1024, T0);
        PathDelay delay = new PathDelay();
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
                peerCredit += w.onConsumed(n, now, delay, ANY);
            }
            if (random.nextInt(8) == 0) {
                delay.onSample(RTT + random.nextInt(3) * 10 * MS, now);
            }
            if (random.nextInt(500) == 0) {
                if (w.squeezed()) {
                    w.unsqueeze();
                } else {
                    w.squeeze();
                }
            }
            assertThat(w.buffered()).isEqualTo(buffered);
            long unacked = w.window() - w.available() - buffered;
            assertThat(unacked).as("step %d", step).isBetween(0L, (long) w.window() / ReceiveWindow.UPDATE_FRACTION);
            assertThat(peerCredit).as("sender's view of credit, step %d", step).isEqualTo(w.available());
            assertThat(w.window()).isBetween(1024, 64 * 1024);
        }
    }
}
