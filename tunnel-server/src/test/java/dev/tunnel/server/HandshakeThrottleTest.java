package dev.tunnel.server;

import static dev.tunnel.server.HandshakeThrottle.Verdict.ADMITTED;
import static dev.tunnel.server.HandshakeThrottle.Verdict.OVER_ADDRESS_RATE;
import static dev.tunnel.server.HandshakeThrottle.Verdict.OVER_SERVER_RATE;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The handshake buckets on a fake clock: per address, over all addresses, and bounded in memory. */
@Timeout(10)
class HandshakeThrottleTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private static InetAddress address(int n) throws Exception {
        return InetAddress.getByAddress(new byte[] {10, (byte) (n >> 16), (byte) (n >> 8), (byte) n});
    }

    private void advanceMillis(long millis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void anAddressGetsItsBurstAtOnceThenItsRate() throws Exception {
        HandshakeThrottle throttle = new HandshakeThrottle(50, 20, 0, now::get);
        InetAddress a = address(1);
        for (int i = 0; i < 20; i++) {
            assertThat(throttle.admit(a)).as("handshake %d of the burst", i).isEqualTo(ADMITTED);
        }
        assertThat(throttle.admit(a)).isEqualTo(OVER_ADDRESS_RATE);
        advanceMillis(100); // 50 a second: 5 more
        for (int i = 0; i < 5; i++) {
            assertThat(throttle.admit(a)).isEqualTo(ADMITTED);
        }
        assertThat(throttle.admit(a)).isEqualTo(OVER_ADDRESS_RATE);
        advanceMillis(60_000); // refilled to the burst, never past it
        int admitted = 0;
        while (throttle.admit(a) == ADMITTED) {
            admitted++;
        }
        assertThat(admitted).isEqualTo(20);
        assertThat(throttle.refused()).isEqualTo(3);
    }

    @Test
    void oneAddressOverItsRateLeavesTheOthersAlone() throws Exception {
        HandshakeThrottle throttle = new HandshakeThrottle(50, 20, 0, now::get);
        for (int i = 0; i < 1000; i++) {
            throttle.admit(address(1));
        }
        assertThat(throttle.admit(address(1))).isEqualTo(OVER_ADDRESS_RATE);
        assertThat(throttle.admit(address(2))).isEqualTo(ADMITTED);
    }

    @Test
    void allAddressesTogetherAreHeldToTheServerRateAndAnAddressOverItsOwnSpendsNoneOfIt() throws Exception {
        HandshakeThrottle throttle = new HandshakeThrottle(50, 20, 100, now::get);
        for (int i = 0; i < 1000; i++) {
            throttle.admit(address(1)); // 20 admitted, the rest refused by its own bucket
        }
        int admitted = 0;
        for (int n = 2; n < 200; n++) {
            if (throttle.admit(address(n)) == ADMITTED) {
                admitted++;
            }
        }
        assertThat(admitted).as("the server-wide burst left after the flooding address's 20").isEqualTo(80);
        assertThat(throttle.admit(address(500))).isEqualTo(OVER_SERVER_RATE);
        advanceMillis(1000);
        assertThat(throttle.admit(address(500))).isEqualTo(ADMITTED);
    }

    @Test
    void overTheServerRateAConnectionWaitsItsTurnUpToTheBoundThenIsRefused() throws Exception {
        HandshakeThrottle throttle = new HandshakeThrottle(0, 20, 100, TimeUnit.SECONDS.toNanos(5), now::get);
        for (int n = 0; n < 100; n++) {
            assertThat(throttle.admitPaced(address(n)).waitNanos()).as("the burst goes at once").isZero();
        }
        for (int i = 1; i <= 500; i++) {
            HandshakeThrottle.Admission turn = throttle.admitPaced(address(1000 + i));
            assertThat(turn.verdict()).isEqualTo(ADMITTED);
            assertThat(turn.waitNanos()).as("one every 10 ms").isEqualTo(TimeUnit.MILLISECONDS.toNanos(10L * i));
        }
        assertThat(throttle.admitPaced(address(2000)).verdict()).as("past 5 s of waiting").isEqualTo(OVER_SERVER_RATE);
        assertThat(throttle.paced()).isEqualTo(500);
        assertThat(throttle.refused()).isEqualTo(1);
        advanceMillis(5_000);
        assertThat(throttle.admitPaced(address(2001)).waitNanos()).as("the queue has drained").isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
    }

    @Test
    void zeroMeansUnlimited() throws Exception {
        HandshakeThrottle throttle = new HandshakeThrottle(0, 20, 0, now::get);
        for (int i = 0; i < 10_000; i++) {
            assertThat(throttle.admit(address(1))).isEqualTo(ADMITTED);
        }
        assertThat(throttle.refused()).isZero();
    }

    @Test
    void atMostMaxTrackedAddressesAreKeptTheLeastRecentlySeenDroppedFirst() throws Exception {
        HandshakeThrottle throttle = new HandshakeThrottle(1, 1, 0, now::get);
        InetAddress first = address(0);
        assertThat(throttle.admit(first)).isEqualTo(ADMITTED);
        assertThat(throttle.admit(first)).isEqualTo(OVER_ADDRESS_RATE);
        for (int n = 1; n <= HandshakeThrottle.MAX_TRACKED; n++) {
            throttle.admit(address(n));
        }
        // the first address was dropped: it starts again with a full bucket
        assertThat(throttle.admit(first)).isEqualTo(ADMITTED);
    }
}
