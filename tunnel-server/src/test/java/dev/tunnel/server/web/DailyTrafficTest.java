package dev.tunnel.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDate;
import org.junit.jupiter.api.Test;

class DailyTrafficTest {
    private static final LocalDate MONDAY = LocalDate.of(2026, 11, 30);

    @Test
    void bytesLandOnTheDayTheyAreSampled() {
        DailyTraffic t = new DailyTraffic(MONDAY, 0);
        t.sample(MONDAY, 100);
        t.sample(MONDAY.plusDays(1), 250);
        t.sample(MONDAY.plusDays(1), 300);
        assertThat(t.lastDays()).containsExactly(200, 100, 0, 0, 0, 0, 0);
        assertThat(t.today()).isEqualTo(200);
    }

    @Test
    void aWeekLaterTheOldDaysAreGone() {
        DailyTraffic t = new DailyTraffic(MONDAY, 0);
        t.sample(MONDAY, 100);
        t.sample(MONDAY.plusDays(9), 100);
        assertThat(t.lastDays()).containsOnly(0);
    }

    @Test
    void aRestartedCounterIsNotCountedTwiceNorNegative() {
        DailyTraffic t = new DailyTraffic(MONDAY, 0);
        t.sample(MONDAY, 500);
        t.rebase(0);
        t.sample(MONDAY, 40);
        assertThat(t.today()).isEqualTo(540);
    }
}
