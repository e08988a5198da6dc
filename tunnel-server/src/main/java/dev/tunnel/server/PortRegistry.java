package dev.tunnel.server;

import java.util.HashMap;
import java.util.Map;

/**
 * Which public ports are taken and by which client, and the rules on them: {@code allowPorts}
 * and {@code maxPortsPerClient}. Shared by all client sessions.
 *
 * <p>Threading: sessions run on different event loops, so every method is synchronized; each
 * call is a few map operations.
 */
final class PortRegistry {
    private final PortPolicy policy;
    private final int maxPortsPerClient;
    private final Map<Integer, Object> owners = new HashMap<>();
    private final Map<Object, Integer> counts = new HashMap<>();

    /** Which ports may be opened. */
    interface PortPolicy {
        boolean allowed(int port);

        /** The allowed ports to try, in order, when a client asks for port 0; empty = any. */
        int[] candidates();
    }

    PortRegistry(PortPolicy policy, int maxPortsPerClient) {
        this.policy = policy;
        this.maxPortsPerClient = maxPortsPerClient;
    }

    /**
     * Reserves {@code port} for {@code owner}.
     *
     * @return null on success, or the reason the port cannot be reserved
     */
    synchronized String reserve(int port, Object owner) {
        if (maxPortsPerClient > 0 && counts.getOrDefault(owner, 0) >= maxPortsPerClient) {
            return "client already holds " + maxPortsPerClient + " ports (maxPortsPerClient = " + maxPortsPerClient + ")";
        }
        if (port != 0 && !policy.allowed(port)) {
            return "port " + port + " is not allowed by the server (allowPorts)";
        }
        if (port != 0 && owners.containsKey(port)) {
            return "port " + port + " is already used by another proxy";
        }
        if (port != 0) {
            owners.put(port, owner);
        }
        counts.merge(owner, 1, Integer::sum);
        return null;
    }

    /** Records the port the OS picked for a reservation made with port 0. */
    synchronized void bound(int port, Object owner) {
        owners.putIfAbsent(port, owner);
    }

    /** Whether {@code port} is free as far as this server knows (the OS may still refuse it). */
    synchronized boolean isFree(int port) {
        return !owners.containsKey(port);
    }

    synchronized void release(int port, Object owner) {
        if (port != 0 && owners.get(port) == owner) {
            owners.remove(port);
        }
        counts.computeIfPresent(owner, (k, n) -> n <= 1 ? null : n - 1);
    }

    int[] candidates() {
        return policy.candidates();
    }
}
