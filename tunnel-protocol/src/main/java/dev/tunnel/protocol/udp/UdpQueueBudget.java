package dev.tunnel.protocol.udp;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes one UDP proxy (or sudp visitor) lets its associations hold in their entrance queues
 * ({@link WaitingDatagrams}) at once, shared by all of them: a datagram that finds the budget
 * spent makes its association drop its own oldest waiting datagrams until it fits.
 *
 * <p>Threading: any thread (an association may live on a session's loop while an older one
 * still drains on another's after a reconnect); {@link #used()} may be read from anywhere.
 */
public final class UdpQueueBudget {
    private final long limit;
    private final AtomicLong used = new AtomicLong();

    /** @param limit bytes all of a proxy's entrance queues may hold together */
    public UdpQueueBudget(long limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit: " + limit + " (expected: > 0)");
        }
        this.limit = limit;
    }

    /** A budget of {@link UdpLimits#PROXY_QUEUE}. */
    public static UdpQueueBudget perProxy() {
        return new UdpQueueBudget(UdpLimits.PROXY_QUEUE);
    }

    /** Takes {@code bytes} if they fit under the limit; false (nothing taken) otherwise. */
    boolean tryTake(int bytes) {
        long now;
        do {
            now = used.get();
            if (now + bytes > limit) {
                return false;
            }
        } while (!used.compareAndSet(now, now + bytes));
        return true;
    }

    /** Gives back bytes taken by {@link #tryTake}. */
    void give(int bytes) {
        used.addAndGet(-bytes);
    }

    /** Bytes held in all the proxy's entrance queues now. */
    public long used() {
        return used.get();
    }

    public long limit() {
        return limit;
    }
}
