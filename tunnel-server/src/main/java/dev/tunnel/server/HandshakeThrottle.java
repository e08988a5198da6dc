package dev.tunnel.server;

import dev.tunnel.protocol.relay.TokenBucket;
import java.net.InetAddress;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * How fast new connections to {@code bindPort} may go on to their TLS handshake: a token bucket
 * per source address ({@code transport.handshakeRatePerIP} a second, bursts of
 * {@code transport.handshakeBurstPerIP}) and one for every address together
 * ({@code transport.handshakeRate} a second, bursts of one second's worth). Over an address's
 * rate a connection is refused (a flood). Over the server's rate it is paced, not refused: it
 * takes a token ahead and waits its turn, up to {@code maxWait} (then it is refused), so a login
 * storm after a restart (every client at once) is spread over a few seconds and the crypto of
 * the handshakes never takes more than the rate's share of the loops. A connection an
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

    /** A verdict, and for an admitted connection how long it waits for its turn first (0 = none). */
    record Admission(Verdict verdict, long waitNanos) {
        static final Admission NOW = new Admission(Verdict.ADMITTED, 0);
    }

    private final int ratePerAddress;
    private final int burstPerAddress;
    private final LongSupplier clock;
    /** Null when the server-wide rate is unlimited. */
    private final TokenBucket all;
    private final AddressTable<TokenBucket> byAddress = new AddressTable<>(MAX_TRACKED);
    private final LongAdder refused = new LongAdder();
    private final LongAdder paced = new LongAdder();
    private final long maxWaitNanos;

    /**
     * @param ratePerAddress  handshakes a second one address may start; 0 = unlimited
     * @param burstPerAddress handshakes one address may start at once after a quiet spell
     * @param rate            handshakes a second all addresses together may start; 0 = unlimited
     * @param clockNanos      as {@link System#nanoTime()} (tests pass their own)
     */
    HandshakeThrottle(int ratePerAddress, int burstPerAddress, int rate, LongSupplier clockNanos) {
        this(ratePerAddress, burstPerAddress, rate, 0, clockNanos);
    }

    /** @param maxWaitNanos longest a connection over the server's rate waits for its turn; 0 = none waits, all are refused */
    HandshakeThrottle(int ratePerAddress, int burstPerAddress, int rate, long maxWaitNanos, LongSupplier clockNanos) {
        this.maxWaitNanos = maxWaitNanos;
        this.ratePerAddress = ratePerAddress;
        this.burstPerAddress = burstPerAddress;
        this.clock = clockNanos;
        this.all = rate > 0 ? new TokenBucket(rate, rate, clockNanos) : null;
    }

    /** Whether a new connection from {@code address} may start its handshake now (no waiting). */
    Verdict admit(InetAddress address) {
        return admitPaced(address).verdict();
    }

    /**
     * Whether a new connection from {@code address} may start its handshake, and after how long:
     * over the server's rate it takes its token ahead and waits, when the wait is at most
     * {@code maxWait}.
     */
    synchronized Admission admitPaced(InetAddress address) {
        if (ratePerAddress > 0 && !byAddress.getOrCreate(address,
                a -> new TokenBucket(ratePerAddress, burstPerAddress, clock)).tryTake()) {
            refused.increment();
            return new Admission(Verdict.OVER_ADDRESS_RATE, 0);
        }
        if (all == null) {
            return Admission.NOW;
        }
        long wait = all.waitNanosFor(1);
        if (wait == 0 || (wait <= maxWaitNanos)) {
            all.consume(1);
            if (wait > 0) {
                paced.increment();
            }
            return wait == 0 ? Admission.NOW : new Admission(Verdict.ADMITTED, wait);
        }
        refused.increment();
        return new Admission(Verdict.OVER_SERVER_RATE, 0);
    }

    /** Connections that waited for their turn so far. */
    long paced() {
        return paced.sum();
    }

    /** Connections refused so far. */
    long refused() {
        return refused.sum();
    }

    int ratePerAddress() {
        return ratePerAddress;
    }
}
