package dev.tunnel.protocol.udp;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The UDP associations of one proxy (or one sudp visitor), keyed by the peer's address, in
 * order of last activity. Bounded: adding beyond {@code maxEntries} evicts the entry idle the
 * longest, so a flood of source addresses can only recycle entries, never grow the table; an
 * entry idle for {@code idleNanos} is removed by {@link #expire}.
 *
 * <p>Invariant: {@code size() <= maxEntries}, and iteration order is least recently active first.
 *
 * <p>Not thread-safe: used on one event loop. Times are {@link System#nanoTime()} values passed in,
 * so tests drive the clock.
 */
public final class AssociationTable<K, V> {
    private final int maxEntries;
    private final long idleNanos;
    private final LinkedHashMap<K, Entry<V>> entries = new LinkedHashMap<>(16, 0.75f, true);

    private static final class Entry<V> {
        final V value;
        long lastActive;

        Entry(V value, long lastActive) {
            this.value = value;
            this.lastActive = lastActive;
        }
    }

    public AssociationTable(int maxEntries, long idleNanos) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException("maxEntries: " + maxEntries + " (expected: at least 1)");
        }
        this.maxEntries = maxEntries;
        this.idleNanos = idleNanos;
    }

    /** The entry for {@code key}, marked active at {@code now}; null if there is none. */
    public V touch(K key, long now) {
        Entry<V> e = entries.get(key);
        if (e == null) {
            return null;
        }
        e.lastActive = now;
        return e.value;
    }

    /**
     * Adds an entry for a key that has none.
     *
     * @return the entry evicted to make room (the caller ends it), or null
     */
    public V add(K key, V value, long now) {
        if (entries.containsKey(key)) {
            throw new IllegalStateException("already associated: " + key);
        }
        V evicted = null;
        if (entries.size() >= maxEntries) {
            Iterator<Entry<V>> oldest = entries.values().iterator();
            evicted = oldest.next().value;
            oldest.remove();
        }
        entries.put(key, new Entry<>(value, now));
        return evicted;
    }

    /** Removes {@code key}'s entry if it still maps to {@code value}. */
    public boolean remove(K key, V value) {
        Entry<V> e = entries.get(key);
        if (e != null && e.value == value) {
            entries.remove(key);
            return true;
        }
        return false;
    }

    /** Removes and returns every entry idle for at least the idle timeout at {@code now}. */
    public List<V> expire(long now) {
        List<V> expired = new ArrayList<>();
        Iterator<Map.Entry<K, Entry<V>>> it = entries.entrySet().iterator();
        while (it.hasNext()) {
            Entry<V> e = it.next().getValue();
            if (now - e.lastActive < idleNanos) {
                break; // the rest were active more recently
            }
            expired.add(e.value);
            it.remove();
        }
        return expired;
    }

    /** Removes and returns every entry. */
    public List<V> clear() {
        List<V> all = new ArrayList<>(entries.size());
        for (Entry<V> e : entries.values()) {
            all.add(e.value);
        }
        entries.clear();
        return all;
    }

    public int size() {
        return entries.size();
    }

    public int maxEntries() {
        return maxEntries;
    }
}
