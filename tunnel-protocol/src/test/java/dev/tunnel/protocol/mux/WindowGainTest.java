package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The session's window gain against the queue its pings see, on a simulated clock. */
@Timeout(10)
class WindowGainTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long RTT = 80 * MS;
    private static final long TARGET = 5 * MS;

    @Test
    void aStandingQueueAboveTheTargetLowersTheGainToItsMinimum() {
        WindowGain gain = new WindowGain(TARGET);
        long now = rounds(gain, 0, 50, 40 * MS);
        assertThat(gain.gain()).isEqualTo(WindowGain.MIN);
        rounds(gain, now, 5, 40 * MS);
        assertThat(gain.gain()).isEqualTo(WindowGain.MIN);
    }

    @Test
    void aPathWithoutQueueRaisesTheGainToItsMaximumWhileAStreamIsBoundByItsWindow() {
        WindowGain gain = new WindowGain(TARGET);
        rounds(gain, 0, 200, 0);
        assertThat(gain.gain()).isEqualTo(WindowGain.MAX);
    }

    /**
     * Streams that do not fill their windows (small requests, a slow consumer) leave the path
     * empty: that holds the gain, so the next download does not start with windows far too big.
     */
    @Test
    void anEmptyQueueBehindStreamsThatDoNotFillTheirWindowsHoldsTheGain() {
        WindowGain gain = new WindowGain(TARGET);
        long now = 0;
        for (int ping = 0; ping < 200 * 8; ping++) {
            now += RTT / 8;
            gain.onSample(0, RTT, now);
        }
        assertThat(gain.gain()).isEqualTo(WindowGain.START);
        rounds(gain, now, 1, 0);
        assertThat(gain.gain()).isGreaterThan(WindowGain.START);
    }

    /** Windows holding 20 ms too much: the gain drops by part of 20 / 80, at most a step a round. */
    @Test
    void theGainMovesByPartOfTheExcessQueueAndAtMostOneStepARound() {
        WindowGain gain = new WindowGain(TARGET);
        double before = gain.gain();
        long now = rounds(gain, 0, 1, TARGET + 20 * MS);
        double step = before - gain.gain();
        assertThat(step).isCloseTo(WindowGain.DOWN_RESPONSE * 20.0 / 80, offset(0.01));
        double second = gain.gain();
        rounds(gain, now, WindowGain.FILTER_ROUNDS, 2 * RTT); // once the 20 ms round has left the filter
        assertThat(second - gain.gain()).isLessThanOrEqualTo(WindowGain.FILTER_ROUNDS * WindowGain.MAX_STEP + 1e-9);
        double last = gain.gain();
        rounds(gain, now + WindowGain.FILTER_ROUNDS * RTT, 1, 2 * RTT);
        assertThat(last - gain.gain()).isCloseTo(WindowGain.MAX_STEP, offset(1e-9));
    }

    @Test
    void aQueueAtTheTargetHoldsTheGain() {
        WindowGain gain = new WindowGain(TARGET);
        rounds(gain, 0, 50, TARGET);
        assertThat(gain.gain()).isEqualTo(WindowGain.START);
    }

    /**
     * A busy host delays the pongs of one round in two by 30 ms: the standing queue is the
     * smallest delay of several rounds, so the gain does not fall.
     */
    @Test
    void aBusyHostsOccasionallyLatePongsDoNotLowerTheGain() {
        WindowGain gain = new WindowGain(TARGET);
        long now = 0;
        for (int round = 0; round < 40; round++) {
            now = rounds(gain, now, 1, round % 2 == 1 ? 30 * MS : TARGET);
        }
        assertThat(gain.gain()).isGreaterThanOrEqualTo(WindowGain.START);
    }

    /**
     * {@code count} rounds of one base RTT, each with eight pings that all see {@code queue},
     * behind a stream bound by its window.
     */
    private static long rounds(WindowGain gain, long now, int count, long queue) {
        for (int round = 0; round < count; round++) {
            for (int ping = 0; ping < 8; ping++) {
                now += RTT / 8;
                gain.windowLimited(now);
                gain.onSample(queue, RTT, now);
            }
        }
        return now;
    }
}
