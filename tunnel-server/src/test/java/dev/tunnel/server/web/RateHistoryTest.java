package dev.tunnel.server.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Bytes land in the step of their time; steps older than the window are gone. */
class RateHistoryTest {
    private final RateHistory history = new RateHistory(10, 6);

    @Test
    void bytesLandInTheStepOfTheirTimeOldestFirst() {
        history.add(1000, 100, 10);
        history.add(1005, 100, 10); // same step
        history.add(1010, 50, 0);
        double[][] rates = history.perSecond(1019);
        assertThat(rates[0]).containsExactly(0, 0, 0, 0, 20, 5);
        assertThat(rates[1]).containsExactly(0, 0, 0, 0, 2, 0);
    }

    @Test
    void aReadLaterShiftsTheWindowAndClearsWhatFellOut() {
        history.add(1000, 600, 0);
        assertThat(history.perSecond(1030)[0]).containsExactly(0, 0, 60, 0, 0, 0);
        assertThat(history.perSecond(1050)[0]).containsExactly(60, 0, 0, 0, 0, 0);
        assertThat(history.perSecond(1060)[0]).containsOnly(0);
        history.add(1065, 10, 0);
        assertThat(history.perSecond(1065)[0]).containsExactly(0, 0, 0, 0, 0, 1);
    }

    @Test
    void aGapLongerThanTheWindowClearsEverySlot() {
        for (int t = 1000; t < 1060; t += 10) {
            history.add(t, 10, 10);
        }
        history.add(5000, 20, 0);
        assertThat(history.perSecond(5000)[0]).containsExactly(0, 0, 0, 0, 0, 2);
        assertThat(history.perSecond(5000)[1]).containsOnly(0);
    }

    @Test
    void aClockThatStepsBackCountsIntoTheLatestStep() {
        history.add(1050, 10, 0);
        history.add(1000, 10, 0);
        assertThat(history.perSecond(1050)[0]).containsExactly(0, 0, 0, 0, 0, 2);
    }

    @Test
    void refusesAnEmptyWindow() {
        assertThatThrownBy(() -> new RateHistory(0, 6)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RateHistory(10, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
