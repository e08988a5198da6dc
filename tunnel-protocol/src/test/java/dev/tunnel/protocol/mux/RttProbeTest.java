package dev.tunnel.protocol.mux;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * When the session's pings go out: every busy period while data flows, once a second when data
 * flows on a path too short for the queue to move a window, never when idle.
 */
@Timeout(10)
class RttProbeTest {
    private final AtomicInteger pings = new AtomicInteger();
    private final RttProbe probe = new RttProbe(pings::incrementAndGet);
    private EmbeddedChannel channel;

    @BeforeEach
    void start() {
        channel = new EmbeddedChannel();
        channel.freezeTime();
        probe.start(channel);
    }

    @AfterEach
    void stop() {
        probe.stop();
        channel.finishAndReleaseAll();
    }

    @Test
    void anIdleSessionDoesNotPing() {
        advance(5 * RttProbe.IDLE_PROBE_MILLIS);
        assertThat(pings).hasValue(0);
    }

    /** Large frames at a few MB/s arrive a period or two apart: the probe must not fall back to once a second between them. */
    @Test
    void aStreamWhoseFramesComeEveryOtherPeriodIsPingedEveryPeriod() {
        probe.carriedData();
        advance(RttProbe.IDLE_PROBE_MILLIS);
        assertThat(pings).hasValue(1);
        for (int period = 0; period < 100; period++) {
            if (period % 2 == 0) {
                probe.carriedData();
            }
            advance(RttProbe.BUSY_PROBE_MILLIS);
        }
        assertThat(pings).hasValue(101);
    }

    @Test
    void afterQuietPeriodsTheProbeIsIdleAgainUntilDataFlows() {
        probe.carriedData();
        advance(RttProbe.IDLE_PROBE_MILLIS);
        for (int period = 0; period < 3 * RttProbe.QUIET_PROBES; period++) {
            advance(RttProbe.BUSY_PROBE_MILLIS);
        }
        assertThat(pings).as("the first ping and one per period until the session counts as idle")
                .hasValue(RttProbe.QUIET_PROBES);
        advance(3 * RttProbe.IDLE_PROBE_MILLIS);
        assertThat(pings).hasValue(RttProbe.QUIET_PROBES);
        probe.carriedData();
        advance(RttProbe.IDLE_PROBE_MILLIS);
        assertThat(pings).hasValue(RttProbe.QUIET_PROBES + 1);
    }

    @Test
    void onAPathTooShortForTheQueueToMoveAWindowABusySessionPingsOnceASecond() {
        probe.onPong(System.nanoTime() - 100_000); // a loopback round trip: 0.1 ms
        busyFor(3 * RttProbe.IDLE_PROBE_MILLIS);
        assertThat(pings).hasValue(3);
    }

    @Test
    void onAPathOfTwentyMillisecondsABusySessionPingsEveryPeriod() {
        probe.onPong(System.nanoTime() - 20_000_000);
        busyFor(3 * RttProbe.IDLE_PROBE_MILLIS);
        assertThat(pings).as("from the first probe, after a second, one per period")
                .hasValue((int) (1 + 2 * RttProbe.IDLE_PROBE_MILLIS / RttProbe.BUSY_PROBE_MILLIS));
    }

    private void busyFor(long millis) {
        for (long t = 0; t < millis; t += RttProbe.BUSY_PROBE_MILLIS) {
            probe.carriedData();
            advance(RttProbe.BUSY_PROBE_MILLIS);
        }
    }

    private void advance(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
    }
}
