package dev.tunnel.server.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tunnel.protocol.Options;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class VisitorRulesTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final RefusedVisitors refused = new RefusedVisitors();

    private VisitorRules rules(Options options) {
        return VisitorRules.from("alice.web", options, refused, now::get);
    }

    private static InetSocketAddress peer(String ip) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(ip), 40_000);
    }

    private long refusedFor(VisitorRules.Reason reason) {
        long[] counts = refused.snapshot().get("alice.web");
        return counts == null ? 0 : counts[reason.ordinal()];
    }

    @Test
    void noKeysMeansNoRulesAndEveryoneIn() throws Exception {
        VisitorRules none = rules(Options.of("remotePort", "0"));
        assertThat(none.isEmpty()).isTrue();
        assertThat(none.admits(peer("203.0.113.9"), "public connection")).isTrue();
    }

    @Test
    void denyWinsOverAllowAndAllowShutsOutTheRest() throws Exception {
        VisitorRules r = rules(Options.builder().putList("allowIPs", List.of("10.0.0.0/8", "::1"))
                .putList("denyIPs", List.of("10.9.0.0/16")).build());
        assertThat(r.admits(peer("10.1.2.3"), "public connection")).isTrue();
        assertThat(r.admits(peer("::1"), "public connection")).isTrue();
        assertThat(r.admits(peer("10.9.0.1"), "public connection")).as("denied inside an allowed network").isFalse();
        assertThat(r.admits(peer("192.168.1.1"), "public connection")).isFalse();
        assertThat(refusedFor(VisitorRules.Reason.DENIED)).isEqualTo(1);
        assertThat(refusedFor(VisitorRules.Reason.NOT_ALLOWED)).isEqualTo(1);
    }

    @Test
    void theNewConnectionAfterTheLimitWithinAMinuteIsRefusedAndTheNextMinuteStartsAfresh() throws Exception {
        VisitorRules r = rules(Options.of("maxNewConnsPerIPPerMinute", "3"));
        for (int i = 0; i < 3; i++) {
            assertThat(r.admits(peer("198.51.100.1"), "public connection")).as("connection %d", i + 1).isTrue();
        }
        now.addAndGet(TimeUnit.SECONDS.toNanos(59));
        assertThat(r.admits(peer("198.51.100.1"), "public connection")).as("4th within the minute").isFalse();
        assertThat(r.admits(peer("198.51.100.2"), "public connection")).as("another address has its own").isTrue();
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(r.admits(peer("198.51.100.1"), "public connection")).as("a minute after its first").isTrue();
        assertThat(refusedFor(VisitorRules.Reason.RATE_LIMITED)).isEqualTo(1);
    }

    @Test
    void refusedAddressesDoNotSpendTheRate() throws Exception {
        VisitorRules r = rules(Options.builder().putList("denyIPs", List.of("198.51.100.1"))
                .put("maxNewConnsPerIPPerMinute", 1).build());
        assertThat(r.admits(peer("198.51.100.1"), "public connection")).isFalse();
        assertThat(r.admits(peer("198.51.100.2"), "public connection")).isTrue();
        assertThat(r.admits(peer("198.51.100.2"), "public connection")).isFalse();
        assertThat(refusedFor(VisitorRules.Reason.DENIED)).isEqualTo(1);
        assertThat(refusedFor(VisitorRules.Reason.RATE_LIMITED)).isEqualTo(1);
    }

    @Test
    void theRateTableIsBoundedAndEvictsTheQuietestAddress() throws Exception {
        NewConnRate rate = new NewConnRate(1, now::get);
        InetAddress first = InetAddress.getByName("10.0.0.1");
        assertThat(rate.tryAcquire(first)).isTrue();
        for (int i = 1; i <= NewConnRate.MAX_ADDRESSES; i++) {
            assertThat(rate.tryAcquire(InetAddress.getByAddress(new byte[] {11, 0, (byte) (i >> 8), (byte) i}))).isTrue();
            assertThat(rate.size()).isLessThanOrEqualTo(NewConnRate.MAX_ADDRESSES);
        }
        assertThat(rate.size()).isEqualTo(NewConnRate.MAX_ADDRESSES);
        assertThat(rate.tryAcquire(first)).as("evicted as the quietest: it starts afresh").isTrue();
        InetAddress recent = InetAddress.getByAddress(new byte[] {11, 0, 16, 0});
        assertThat(rate.tryAcquire(recent)).as("a recent address is still counted").isFalse();
    }

    @Test
    void aRetryingAddressStaysInTheTableAndStaysRefused() throws Exception {
        NewConnRate rate = new NewConnRate(1, now::get);
        InetAddress attacker = InetAddress.getByName("10.0.0.1");
        assertThat(rate.tryAcquire(attacker)).isTrue();
        for (int i = 1; i < 2 * NewConnRate.MAX_ADDRESSES; i++) {
            rate.tryAcquire(InetAddress.getByAddress(new byte[] {11, (byte) (i >> 16), (byte) (i >> 8), (byte) i}));
            if (i % 1000 == 0) {
                assertThat(rate.tryAcquire(attacker)).isFalse();
            }
        }
        assertThat(rate.tryAcquire(attacker)).isFalse();
    }

    @Test
    void badValuesFromAPeerAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> rules(Options.builder().putList("denyIPs", List.of("10.0.0.0/8", "10.0.0.0/40")).build()))
                .hasMessage("denyIPs[1]: \"10.0.0.0/40\": prefix /40 (expected: 0-32)");
        assertThatThrownBy(() -> rules(Options.of("maxNewConnsPerIPPerMinute", "-1")))
                .hasMessageStartingWith("maxNewConnsPerIPPerMinute: -1");
    }

    @Test
    void refusalsOfTooManyProxiesAreFoldedIntoOneSeries() {
        for (int i = 0; i < RefusedVisitors.MAX_PROXIES + 10; i++) {
            refused.count("p" + i, VisitorRules.Reason.DENIED);
        }
        assertThat(refused.snapshot()).hasSize(RefusedVisitors.MAX_PROXIES + 1);
        assertThat(refused.snapshot().get(RefusedVisitors.OTHER)[VisitorRules.Reason.DENIED.ordinal()]).isEqualTo(10);
    }
}
