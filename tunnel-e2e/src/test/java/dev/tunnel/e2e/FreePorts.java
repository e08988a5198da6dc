package dev.tunnel.e2e;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for tests that must name a remotePort. Picked below the usual ephemeral range
 * (32768+), so outgoing connections of the same machine do not take them meanwhile.
 */
final class FreePorts {
    private static final int LOW = 20_000;
    private static final int HIGH = 30_000;

    private FreePorts() {
    }

    /** The first of {@code count} consecutive ports that were all free a moment ago. */
    static int range(int count) {
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = ThreadLocalRandom.current().nextInt(LOW, HIGH - count);
            boolean free = true;
            for (int port = base; port < base + count && free; port++) {
                free = canBind(port);
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("no " + count + " free consecutive ports in " + LOW + "-" + HIGH);
    }

    static int one() {
        return range(1);
    }

    /** Whether a listening socket can be bound on 127.0.0.1:{@code port} now (and closed again). */
    static boolean canBind(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
