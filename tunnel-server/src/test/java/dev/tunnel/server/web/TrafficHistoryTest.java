package dev.tunnel.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The server keeps the last hour of traffic itself, server-wide and per proxy, so a dashboard
 * opened now shows what moved before it was opened, and each byte is counted once however
 * often the proxies are read.
 */
class TrafficHistoryTest {
    private final AtomicLong now = new AtomicLong(Instant.parse("2026-12-03T10:00:00Z").toEpochMilli());
    private final ServerStats stats = new ServerStats(new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now.get());
        }
    });
    private final CountingTraffic traffic = new CountingTraffic();

    private void after(int seconds) {
        now.addAndGet(seconds * 1000L);
    }

    @Test
    void theServerWideHourHasEveryTenSecondsOnceEachOldestFirst() {
        stats.proxyOpened("web", "tcp", "", "c", 6000, traffic);
        traffic.in.set(10_000);
        stats.sampleAll();
        stats.proxies(); // reading the API samples too: no byte is counted twice
        after(10);
        traffic.out.set(2_000);
        stats.sampleAll();

        double[][] hour = stats.lastHour();
        assertThat(hour[0]).hasSize(360);
        assertThat(hour[0][358]).isEqualTo(1000.0);
        assertThat(hour[1][359]).isEqualTo(200.0);
        assertThat(hour[0][359]).isZero();
        after(3600);
        assertThat(stats.lastHour()[0]).as("an hour later it is gone").containsOnly(0.0);
    }

    @Test
    void aProxysMinutesSurviveItsCloseAndReopen() {
        stats.proxyOpened("web", "tcp", "", "c", 6000, traffic);
        traffic.in.set(6_000);
        stats.proxyClosed("web", traffic);
        after(60);
        CountingTraffic second = new CountingTraffic();
        stats.proxyOpened("web", "tcp", "", "c", 6000, second);
        second.in.set(1_200);
        double[][] minutes = stats.lastHour("web");
        assertThat(minutes[0]).hasSize(60);
        assertThat(minutes[0][58]).isEqualTo(100.0);
        assertThat(minutes[0][59]).isEqualTo(20.0);
        assertThat(stats.lastHour("nothing")).isNull();
        assertThat(stats.lastHour()[0]).as("server-wide: both runs, once").contains(600.0, 120.0);
    }
}
