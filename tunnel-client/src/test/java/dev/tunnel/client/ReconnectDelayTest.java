package dev.tunnel.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When a server session tries again. */
class ReconnectDelayTest {
    private static final long NEVER = -1;
    private static final long JUST_LOST = TimeUnit.SECONDS.toNanos(1);
    private static final long LONG_GONE = TimeUnit.SECONDS.toNanos(ReconnectDelay.PROMPT_PERIOD_SECONDS + 1);

    @Test
    void aSessionThatNeverLoggedInDoublesFromOneSecondToTheLimit() {
        int[] delays = new int[7];
        for (int i = 0; i < delays.length; i++) {
            delays[i] = ReconnectDelay.seconds(i, false, NEVER, 20);
        }
        assertThat(delays).containsExactly(1, 2, 4, 8, 16, 20, 20);
    }

    @Test
    void aLostSessionTriesEveryTwoSecondsWhileTheServerIsLikelyRestartingThenBacksOff() {
        assertThat(ReconnectDelay.seconds(0, false, JUST_LOST, 20)).isEqualTo(1);
        for (int attempts = 1; attempts < 12; attempts++) {
            assertThat(ReconnectDelay.seconds(attempts, false, JUST_LOST, 20)).as("attempt %d", attempts).isEqualTo(2);
        }
        assertThat(ReconnectDelay.seconds(5, false, LONG_GONE, 20)).isEqualTo(20);
    }

    @Test
    void aRefusedTokenWaitsTwentySecondsAndTheLimitStillHolds() {
        assertThat(ReconnectDelay.seconds(0, true, JUST_LOST, 20)).isEqualTo(ReconnectDelay.REFUSED_SECONDS);
        assertThat(ReconnectDelay.seconds(3, false, NEVER, 2)).isEqualTo(2); // several servers: limit 2 s
        assertThat(ReconnectDelay.seconds(0, false, JUST_LOST, 2)).isEqualTo(1);
    }

    @Test
    void jitterStaysWithinTwentyPercent() {
        for (int i = 0; i < 1000; i++) {
            assertThat(ReconnectDelay.jittered(2)).isBetween(1600L, 2400L);
        }
    }
}
