package dev.tunnel.server.web;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Entries by key, online or offline: every online entry, and the {@code maxOffline} entries that
 * went offline last, the one offline longest dropped first. Every change is a constant number of
 * hash-map operations, however many entries there are: the offline ones are kept in the order
 * they went offline, so the one to drop is always the first.
 *
 * <p>Threading: not thread-safe; {@link ServerStats} calls it under its lock.
 */
final class RecentTable<V> {
    private final Map<String, V> online = new HashMap<>();
    private final Map<String, V> offline;

    RecentTable(int maxOffline) {
        this.offline = new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > maxOffline;
            }
        };
    }

    /** The entry of {@code key}, online or offline, or null. */
    V get(String key) {
        V v = online.get(key);
        return v != null ? v : offline.get(key);
    }

    /** The online entry of {@code key}, or null. */
    V online(String key) {
        return online.get(key);
    }

    /** Takes the entry of {@code key} out, online or offline; null if there is none. */
    V remove(String key) {
        V v = online.remove(key);
        return v != null ? v : offline.remove(key);
    }

    /** {@code value} is online under {@code key} (take its old entry out first with {@link #remove}). */
    void putOnline(String key, V value) {
        online.put(key, value);
    }

    /** Moves the online entry of {@code key} to the offline ones, dropping the oldest past the cap. */
    void goOffline(String key) {
        V v = online.remove(key);
        if (v != null) {
            offline.put(key, v);
        }
    }

    /** Drops every offline entry; returns how many there were. */
    int clearOffline() {
        int n = offline.size();
        offline.clear();
        return n;
    }

    int onlineCount() {
        return online.size();
    }

    int offlineCount() {
        return offline.size();
    }

    /** Every entry, online first, then offline ones from the longest offline. */
    void forEach(BiConsumer<String, V> action) {
        online.forEach(action);
        offline.forEach(action);
    }
}
