package dev.tunnel.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The table behind the dashboard's clients and proxies: online entries are never dropped, the
 * offline ones are capped and dropped oldest first, and an entry that comes back online leaves
 * the offline order.
 */
@Timeout(10)
class RecentTableTest {

    private static List<String> keys(RecentTable<String> table) {
        List<String> out = new ArrayList<>();
        table.forEach((k, v) -> out.add(k));
        return out;
    }

    @Test
    void offlineEntriesAreCappedAndTheOldestOfflineIsDroppedFirst() {
        RecentTable<String> table = new RecentTable<>(2);
        for (String k : List.of("a", "b", "c", "d")) {
            table.putOnline(k, k);
        }
        table.goOffline("c");
        table.goOffline("a");
        table.goOffline("d"); // c went offline first: it goes
        assertThat(keys(table)).containsExactly("b", "a", "d");
        assertThat(table.get("c")).isNull();
        assertThat(table.onlineCount()).isEqualTo(1);
        assertThat(table.offlineCount()).isEqualTo(2);
    }

    @Test
    void onlineEntriesAreNeverDroppedHoweverManyThereAre() {
        RecentTable<String> table = new RecentTable<>(1);
        for (int i = 0; i < 100_000; i++) {
            table.putOnline("p" + i, "v");
        }
        for (int i = 0; i < 100_000; i += 2) {
            table.goOffline("p" + i);
        }
        assertThat(table.onlineCount()).isEqualTo(50_000);
        assertThat(table.offlineCount()).isEqualTo(1);
        assertThat(table.get("p99998")).isEqualTo("v");
        assertThat(table.get("p99996")).isNull();
    }

    @Test
    void anEntryBackOnlineLeavesTheOfflineOnesAndIsNotDroppedWithThem() {
        RecentTable<String> table = new RecentTable<>(1);
        table.putOnline("a", "first");
        table.goOffline("a");
        assertThat(table.online("a")).isNull();
        assertThat(table.remove("a")).isEqualTo("first");
        table.putOnline("a", "second");
        table.putOnline("b", "b");
        table.goOffline("b");
        assertThat(table.online("a")).isEqualTo("second");
        assertThat(keys(table)).containsExactly("a", "b");
    }
}
