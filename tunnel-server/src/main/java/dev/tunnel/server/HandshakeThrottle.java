package dev.tunnel.server;

import dev.tunnel.protocol.relay.TokenBucket;
import java.net.InetAddress;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * How fast new connections to {@code bindPort} may go on to their TLS handshake: a token bucket
 * per source address ({@code transport.handshakeRatePerIP} a second, bursts of
 * {@code transport.handshakeBurstPerIP}) and one for every address together
 * ({@code transport.handshakeRate} a second, bursts of one second's worth). A connection an
 * address's bucket refuses takes nothing from the shared one, so one address flooding cannot
 * spend the others' share. Bounded memory: at most {@value #MAX_TRACKED} addresses are tracked,
 * the one seen least recently dropped first ({@link AddressTable}); a dropped address starts
 * again with a full bucket.
 *
 * <p>Threading: called from every event loop on accept; synchronized, each call a few map
 * operations.
 */
final class HandshakeThrottle {
    static final int MAX_TRACKED = 10_000;

    /** What {@link #admit} decided. */
    enum Verdict { ADMITTED, OVER_ADDRESS_RATE, OVER_SERVER_RATE }

    private final int ratePerAddress;
    private final int burstPerAddress;
    private final LongSupplier clock;
    /** Null when the server-wide rate is unlimited. */
    private final TokenBucket all;
    private final AddressTable<TokenBucket> byAddress = new AddressTable<>(MAX_TRACKED);
    private final LongAdder refused = new LongAdder();

    /**
     * @param ratePerAddress  handshakes a second one address may start; 0 = unlimited
     * @param burstPerAddress handshakes one address may start at once after a quiet spell
     * @param rate            handshakes a second all addresses together may start; 0 = unlimited
     * @param clockNanos      as {@link System#nanoTime()} (tests pass their own)
     */
    HandshakeThrottle(int ratePerAddress, int burstPerAddress, int rate, LongSupplier clockNanos) {
        this.ratePerAddress = ratePerAddress;
        this.burstPerAddress = burstPerAddress;
        this.clock = clockNanos;
        this.all = rate > 0 ? new TokenBucket(rate, rate, clockNanos) : null;
    }

    /** Whether a new connection from {@code address} may start its handshake now. */
    synchronized Verdict admit(InetAddress address) {
        if (ratePerAddress > 0 && !byAddress.getOrCreate(address,
                a -> new TokenBucket(ratePerAddress, burstPerAddress, clock)).tryTake()) {
            refused.increment();
            return Verdict.OVER_ADDRESS_RATE;
        }
        if (all != null && !all.tryTake()) {
            refused.increment();
            return Verdict.OVER_SERVER_RATE;
        }
        return Verdict.ADMITTED;
    }

    /** Connections refused so far. */
    long refused() {
        return refused.sum();
    }

    int ratePerAddress() {
        return ratePerAddress;
    }
}
