package dev.tunnel.server;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Per-source-address state with a cap: at most {@code max} addresses are kept, the one seen
 * least recently dropped first, so a flood from many addresses costs bounded memory and each
 * lookup a constant number of map operations.
 *
 * <p>Threading: not thread-safe; its owner ({@link LoginThrottle}, {@link HandshakeThrottle})
 * calls it under its own lock.
 */
final class AddressTable<E> {
    private final Map<InetAddress, E> entries;

    AddressTable(int max) {
        entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<InetAddress, E> eldest) {
                return size() > max;
            }
        };
    }

    /** The entry of {@code address} (now the most recently seen), or null. */
    E get(InetAddress address) {
        return entries.get(address);
    }

    /** The entry of {@code address}, made by {@code create} if there is none. */
    E getOrCreate(InetAddress address, Function<InetAddress, E> create) {
        return entries.computeIfAbsent(address, create);
    }

    void remove(InetAddress address) {
        entries.remove(address);
    }

    int size() {
        return entries.size();
    }
}
