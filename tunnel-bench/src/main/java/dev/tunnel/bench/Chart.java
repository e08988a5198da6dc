package dev.tunnel.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A self-contained SVG of the bench results (no scripts, no downloads): throughput as a ratio
 * to direct, and latency over the emulated link against its round-trip time.
 */
final class Chart {
    private static final Map<String, String> COLORS = Map.of(
            "direct", "#888888", "ssh", "#d9822b", "haproxy2", "#b0b0b0", "mux-tls", "#2b6cd9", "mux-plain", "#6fa8ff",
            "pool-tls", "#2bb673", "mux-tls-small", "#8e5bd9", "floor-small", "#cbb7ee");
    private static final int WIDTH = 760;
    private static final int LABEL = 230;
    private static final int BAR = 12;

    private Chart() {
    }

    static String svg(Map<String, Map<String, Double>> results, double rttMs) {
        StringBuilder body = new StringBuilder();
        int y = 10;
        y = panel(body, y, "Throughput, ratio to direct (higher is better; 1.0 = direct)", results,
                List.of("ka_rps", "close_rps", "iperf1_gbit", "iperf8_gbit"),
                List.of("ssh", "haproxy2", "mux-tls", "mux-plain", "pool-tls", "mux-tls-small"), true, 1.0, "direct");
        y = panel(body, y + 20, String.format(Locale.ROOT, "Emulated link, %.0f ms RTT: latency in ms (lower is better)", rttMs),
                results, List.of("link_ttfb_ms", "link_p50_ms", "link_p99_ms"),
                List.of("direct", "ssh", "mux-tls", "mux-plain", "pool-tls"), false, rttMs, "RTT");
        y = panel(body, y + 20, "Memory: RSS at ~1,000 req/s, MB (lower is better)",
                results, List.of("rss_1k_server_mb", "rss_1k_client_mb"),
                List.of("ssh", "mux-tls", "mux-tls-small", "floor-small"), false, 64, "target");
        y = legend(body, y + 10);
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + WIDTH + "\" height=\"" + (y + 10)
                + "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
                + body + "</svg>\n";
    }

    private static int panel(StringBuilder b, int y, String title, Map<String, Map<String, Double>> results,
                             List<String> metrics, List<String> columns, boolean ratio, double reference, String refLabel) {
        b.append(text(10, y + 14, title, "bold"));
        y += 24;
        double max = reference;
        for (String m : metrics) {
            Map<String, Double> row = results.getOrDefault(m, Map.of());
            for (String c : columns) {
                Double v = value(row, c, ratio);
                if (v != null) {
                    max = Math.max(max, v);
                }
            }
        }
        max *= 1.1;
        int plot = WIDTH - LABEL - 70;
        int top = y;
        for (String m : metrics) {
            Map<String, Double> row = results.getOrDefault(m, Map.of());
            String label = Report.METRICS.stream().filter(x -> x.id().equals(m)).findFirst().map(Report.Metric::label)
                    .orElse(m).trim();
            if (label.length() > 36) {
                label = label.substring(label.indexOf(':') + 1).trim();
            }
            b.append(text(10, y + 12, label, "normal"));
            for (String c : columns) {
                Double v = value(row, c, ratio);
                if (v == null) {
                    continue;
                }
                int w = (int) Math.round(plot * v / max);
                b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                        LABEL, y, Math.max(1, w), BAR, COLORS.get(c)));
                b.append(text(LABEL + w + 4, y + 10, Report.num(v) + (ratio ? "x" : ""), "normal"));
                y += BAR + 2;
            }
            y += 8;
        }
        int x = LABEL + (int) Math.round(plot * reference / max);
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" stroke-dasharray=\"4 3\"/>%n",
                x, top - 4, x, y));
        b.append(text(x + 3, top - 6, refLabel, "normal"));
        return y;
    }

    private static Double value(Map<String, Double> row, String column, boolean ratio) {
        Double v = row.get(column);
        if (v == null) {
            return null;
        }
        if (!ratio) {
            return v;
        }
        Double direct = row.get("direct");
        return direct == null || direct == 0 ? null : v / direct;
    }

    private static int legend(StringBuilder b, int y) {
        int x = 10;
        for (String c : Report.COLUMNS) {
            String t = Report.COLUMN_TITLES.get(c);
            int w = 30 + t.length() * 7;
            if (x > 10 && x + w > WIDTH) {
                x = 10;
                y += 18;
            }
            b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
                    x, y, COLORS.get(c)));
            b.append(text(x + 16, y + 10, t, "normal"));
            x += w;
        }
        return y + 16;
    }

    private static String text(int x, int y, String s, String weight) {
        String esc = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        return String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"%s\">%s</text>%n", x, y, weight, esc);
    }
}
