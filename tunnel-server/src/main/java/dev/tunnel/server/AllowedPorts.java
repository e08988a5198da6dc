package dev.tunnel.server;

import dev.tunnel.server.config.ServerConfig;
import dev.tunnel.server.config.PortRange;
import java.util.stream.IntStream;

/** {@code allowPorts} of the server config as a {@link PortRegistry.PortPolicy}. */
final class AllowedPorts implements PortRegistry.PortPolicy {
    private final ServerConfig config;
    private final int[] candidates;

    AllowedPorts(ServerConfig config) {
        this.config = config;
        this.candidates = config.allowPorts.stream()
                .flatMapToInt(AllowedPorts::ports)
                .distinct()
                .toArray();
    }

    private static IntStream ports(PortRange range) {
        return range.single != 0 ? IntStream.of(range.single) : IntStream.rangeClosed(range.start, range.end);
    }

    @Override
    public boolean allowed(int port) {
        return config.isPortAllowed(port);
    }

    @Override
    public int[] candidates() {
        return candidates;
    }
}
