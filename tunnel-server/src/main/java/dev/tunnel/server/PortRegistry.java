package dev.tunnel.server;

import java.util.HashMap;
import java.util.Map;

/**
 * Which public ports are taken and by which client session, and how many each
 * {@link PortQuota} holds, so {@code allowPorts} and {@code maxPortsPerClient} hold per client
 * and per user. Shared by all client sessions.
 *
 * <p>Threading: sessions run on different event loops, so every method is synchronized; each
 * call is a few map operations.
 */
final class PortRegistry {
    /** Owners by port: TCP ports as they are, UDP ports offset by {@link #UDP} (the two are separate spaces, as in frp). */
    private final Map<Integer, Object> owners = new HashMap<>();
    private static final int UDP = 1 << 16;
    private final Map<PortQuota, Integer> counts = new HashMap<>();

    /** Which ports may be opened. */
    interface PortPolicy {
        boolean allowed(int port);

        /** The allowed ports to try, in order, when a client asks for port 0; empty = any. */
        int[] candidates();
    }

    /**
     * Reserves {@code port} for {@code owner}, counted against {@code quota}.
     *
     * @return null on success, or the reason the port cannot be reserved
     */
    synchronized String reserve(int port, Object owner, PortQuota quota) {
        return reserve(port, false, owner, quota);
    }

    /** {@link #reserve(int, Object, PortQuota)} for a TCP ({@code udp = false}) or a UDP port. */
    synchronized String reserve(int port, boolean udp, Object owner, PortQuota quota) {
        int key = udp && port != 0 ? port | UDP : port;
        int max = quota.maxPorts();
        if (max > 0 && counts.getOrDefault(quota, 0) >= max) {
            return quota.holder() + " already holds " + max + " ports (maxPortsPerClient = " + max + ")";
        }
        if (port != 0 && !quota.policy().allowed(port)) {
            return "port " + port + " is not allowed by the server (allowPorts)";
        }
        if (port != 0 && owners.containsKey(key)) {
            return (udp ? "UDP " : "") + "port " + port + " is already used by another proxy";
        }
        if (port != 0) {
            owners.put(key, owner);
        }
        counts.merge(quota, 1, Integer::sum);
        return null;
    }

    /** Records the port the OS picked for a reservation made with port 0. */
    synchronized void bound(int port, Object owner) {
        bound(port, false, owner);
    }

    synchronized void bound(int port, boolean udp, Object owner) {
        owners.putIfAbsent(udp ? port | UDP : port, owner);
    }

    /** Whether {@code port} is free as far as this server knows (the OS may still refuse it). */
    synchronized boolean isFree(int port) {
        return isFree(port, false);
    }

    synchronized boolean isFree(int port, boolean udp) {
        return !owners.containsKey(udp ? port | UDP : port);
    }

    synchronized void release(int port, Object owner, PortQuota quota) {
        release(port, false, owner, quota);
    }

    synchronized void release(int port, boolean udp, Object owner, PortQuota quota) {
        int key = udp && port != 0 ? port | UDP : port;
        if (port != 0 && owners.get(key) == owner) {
            owners.remove(key);
        }
        counts.computeIfPresent(quota, (k, n) -> n <= 1 ? null : n - 1);
    }
}
