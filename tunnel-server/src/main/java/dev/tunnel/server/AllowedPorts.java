package dev.tunnel.server;

import dev.tunnel.server.config.PortRange;
import java.util.List;
import java.util.stream.IntStream;

/** An {@code allowPorts} list (the server's, or a user's) as a {@link PortRegistry.PortPolicy}. */
final class AllowedPorts implements PortRegistry.PortPolicy {
    private final List<PortRange> ranges;
    private final int[] candidates;

    AllowedPorts(List<PortRange> ranges) {
        this.ranges = List.copyOf(ranges);
        this.candidates = ranges.stream()
                .flatMapToInt(AllowedPorts::ports)
                .distinct()
                .toArray();
    }

    private static IntStream ports(PortRange range) {
        return range.single != 0 ? IntStream.of(range.single) : IntStream.rangeClosed(range.start, range.end);
    }

    @Override
    public boolean allowed(int port) {
        return ranges.isEmpty() || ranges.stream().anyMatch(r -> r.contains(port));
    }

    @Override
    public int[] candidates() {
        return candidates;
    }
}
