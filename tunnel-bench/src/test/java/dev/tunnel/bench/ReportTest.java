package dev.tunnel.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report judges the memory target on the 1 GB VPS column and shows the bare Netty floor beside it. */
class ReportTest {

    private static Map<String, Map<String, Double>> results() {
        Map<String, Map<String, Double>> r = new LinkedHashMap<>();
        r.put("rss_1k_server_mb", new LinkedHashMap<>(Map.of("mux-tls-small", 71.7, "floor-small", 65.3)));
        r.put("ka_rps", new LinkedHashMap<>(Map.of("direct", 60_000.0, "mux-tls", 30_000.0)));
        return r;
    }

    @Test
    void memoryRowShowsTheFloorAndIsJudgedOnTheVpsColumn() {
        String table = Report.table(results(), 80);
        assertThat(table).contains("bare Netty TLS relay, 1 GB VPS JVM (reference)");
        String row = table.lines().filter(l -> l.startsWith("| RSS at ~1,000 req/s, server side")).findFirst().orElseThrow();
        assertThat(row).contains("| 71.7 |").contains("| 65.3 |").contains("mux TLS, 1 GB VPS JVM").endsWith("**no** |");
        String ka = table.lines().filter(l -> l.startsWith("| HTTP keep-alive")).findFirst().orElseThrow();
        assertThat(ka).contains("30,000 (0.50d)").endsWith("yes |");
    }

    @Test
    void chartHasAMemoryPanelWithBothColumns() {
        String svg = Chart.svg(results(), 80);
        assertThat(svg).contains("Memory: RSS at ~1,000 req/s, MB").contains(">71.7<").contains(">65.3<").contains(">target<");
    }
}
