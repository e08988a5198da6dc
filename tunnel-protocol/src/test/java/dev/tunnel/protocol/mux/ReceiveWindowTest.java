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
    private static final long RTT = TimeUnit.MILLISECONDS.toNanos(20);

    @Test
    void creditGoesBackOnlyOnceHalfTheWindowIsConsumed() {
        ReceiveWindow w = new ReceiveWindow(1024, 1024, T0);
        assertThat(w.onReceived(1024)).isTrue();
        assertThat(w.available()).isZero();

        assertThat(w.onConsumed(300, T0, 0)).isZero();
        assertThat(w.onConsumed(211, T0, 0)).isZero(); // 511 consumed: still under half
        assertThat(w.available()).isZero();
        assertThat(w.onConsumed(1, T0, 0)).isEqualTo(512);
        assertThat(w.available()).isEqualTo(512);

        assertThat(w.onConsumed(511, T0, 0)).isZero();
        assertThat(w.onConsumed(1, T0, 0)).isEqualTo(512);
        assertThat(w.available()).isEqualTo(1024);
        assertThat(w.window()).isEqualTo(1024);
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

    @Test
    void windowDoublesWhenHalfAWindowIsConsumedWithinTwoRtt() {
        ReceiveWindow w = new ReceiveWindow(1024, 1 << 20, T0);
        w.onReceived(512);
        int credit = w.onConsumed(512, T0 + RTT, RTT);
        assertThat(w.window()).isEqualTo(2048);
        assertThat(credit).isEqualTo(512 + 1024); // the consumed bytes plus the growth
        assertThat(w.available()).isEqualTo(2048);
    }

    @Test
    void noGrowthWhenConsumptionTakesTwoRttOrMore() {
        ReceiveWindow w = new ReceiveWindow(1024, 1 << 20, T0);
        w.onReceived(512);
        assertThat(w.onConsumed(512, T0 + 2 * RTT, RTT)).isEqualTo(512);
        assertThat(w.window()).isEqualTo(1024);

        // the epoch restarts at each credit: a fast next half-window grows it
        w.onReceived(512);
        assertThat(w.onConsumed(512, T0 + 2 * RTT + RTT / 2, RTT)).isEqualTo(512 + 1024);
        assertThat(w.window()).isEqualTo(2048);
    }

    @Test
    void noGrowthWithoutAnRttSample() {
        ReceiveWindow w = new ReceiveWindow(1024, 1 << 20, T0);
        for (int i = 0; i < 10; i++) {
            w.onReceived(512);
            assertThat(w.onConsumed(512, T0, 0)).isEqualTo(512);
        }
        assertThat(w.window()).isEqualTo(1024);
    }

    @Test
    void growthStopsAtTheMaximum() {
        ReceiveWindow w = new ReceiveWindow(1024, 3000, T0);
        long now = T0;
        int[] expected = {2048, 3000, 3000, 3000};
        for (int round : expected) {
            int half = w.window() / 2;
            assertThat(w.onReceived(half)).isTrue();
            now += 1;
            w.onConsumed(half, now, RTT);
            assertThat(w.window()).isEqualTo(round);
        }
        assertThat(w.available()).isEqualTo(3000);
    }

    @Test
    void maxBelowInitialMeansNoGrowth() {
        ReceiveWindow w = new ReceiveWindow(4096, 1024, T0);
        w.onReceived(2048);
        assertThat(w.onConsumed(2048, T0 + 1, RTT)).isEqualTo(2048);
        assertThat(w.window()).isEqualTo(4096);
    }

    /** available + buffered + unacked == window under any mix of receive and consume. */
    @Test
    void invariantHoldsUnderRandomTraffic() {
        Random random = new Random(42);
        ReceiveWindow w = new ReceiveWindow(1024, 64 * 1024, T0);
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
                peerCredit += w.onConsumed(n, now, random.nextInt(4) == 0 ? 0 : RTT);
            }
            long unacked = w.window() - w.available() - buffered;
            assertThat(unacked).as("step %d", step).isBetween(0L, (long) w.window() / 2);
            assertThat(peerCredit).as("sender's view of credit, step %d", step).isEqualTo(w.available());
            assertThat(w.window()).isBetween(1024, 64 * 1024);
        }
        assertThat(w.window()).as("fast consumer grows the window").isEqualTo(64 * 1024);
    }
}
