package dev.tunnel.protocol.udp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The table stays bounded under a flood of keys, evicts the longest idle, and expires idle entries. */
@Timeout(20)
class AssociationTableTest {

    @Test
    void aFloodOfNewKeysNeverGrowsTheTableBeyondItsBound() {
        AssociationTable<Integer, String> table = new AssociationTable<>(100, 1_000);
        int evicted = 0;
        for (int i = 0; i < 100_000; i++) {
            if (table.add(i, "v" + i, i) != null) {
                evicted++;
            }
            assertThat(table.size()).isLessThanOrEqualTo(100);
        }
        assertThat(evicted).isEqualTo(100_000 - 100);
    }

    @Test
    void theEntryIdleTheLongestIsEvictedNotTheBusyOne() {
        AssociationTable<String, String> table = new AssociationTable<>(2, 1_000);
        table.add("busy", "B", 0);
        table.add("quiet", "Q", 1);
        table.touch("busy", 2);
        assertThat(table.add("new", "N", 3)).isEqualTo("Q");
        assertThat(table.touch("busy", 4)).isEqualTo("B");
        assertThat(table.touch("quiet", 4)).isNull();
    }

    @Test
    void entriesIdleForTheTimeoutExpireAndActiveOnesStay() {
        AssociationTable<String, String> table = new AssociationTable<>(10, 100);
        table.add("a", "A", 0);
        table.add("b", "B", 50);
        table.touch("a", 60);
        assertThat(table.expire(149)).isEmpty();
        assertThat(table.expire(150)).containsExactly("B");
        assertThat(table.expire(160)).containsExactly("A");
        assertThat(table.size()).isZero();
    }

    @Test
    void removeOnlyRemovesTheSameValue() {
        AssociationTable<String, String> table = new AssociationTable<>(10, 100);
        table.add("a", "A", 0);
        assertThat(table.remove("a", "other")).isFalse();
        assertThat(table.remove("a", "A")).isTrue();
        assertThat(table.size()).isZero();
    }
}
