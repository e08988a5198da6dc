package dev.tunnel.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LateTimelineTest {
    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void onlyRoundTripsOverTheThresholdAreCountedBySecondOfSending() {
        LateTimeline t = new LateTimeline(10);
        t.record(3, ms(LateTimeline.LATE_MILLIS)); // on the threshold: not late
        t.record(3, ms(5));
        t.record(3, ms(1_130));
        t.record(3, ms(250));
        t.record(7, ms(101));
        assertThat(t.total()).isEqualTo(3);
        assertThat(t.report()).endsWith(": 3: 2, 1130; 7: 1, 101");
    }

    @Test
    void firstMessagesAreNotCountedAndLateOnesLandInTheLastSecond() {
        LateTimeline t = new LateTimeline(5);
        t.record(-1, ms(2_000));
        t.record(42, ms(300));
        assertThat(t.report()).endsWith(": 4: 1, 300");
    }

    @Test
    void timelinesOfSeveralLoopsAddUp() {
        LateTimeline a = new LateTimeline(3);
        LateTimeline b = new LateTimeline(3);
        LateTimeline total = new LateTimeline(3);
        a.record(1, ms(200));
        b.record(1, ms(900));
        b.record(2, ms(150));
        a.addTo(total);
        b.addTo(total);
        assertThat(total.report()).endsWith(": 1: 2, 900; 2: 1, 150");
    }

    @Test
    void aRunWithoutLateRoundTripsSaysSo() {
        assertThat(new LateTimeline(3).report()).endsWith(": none");
    }
}
