package dev.tunnel.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns the figures {@code bench/compare.sh} collected into one Markdown table (every figure,
 * its ratio to direct and to {@code ssh -R}, the target and whether it is met), a chart (SVG),
 * and the head of {@code docs/benchmarks.md} (compare.sh appends the other scripts' sections).
 *
 * <pre>java -cp tunnel-bench.jar dev.tunnel.bench.Report --results results.txt --meta meta.txt \
 *      --out docs/benchmarks.md --svg docs/benchmarks.svg</pre>
 *
 * {@code results.txt}: one figure per line, {@code metric column value}. {@code meta.txt}:
 * {@code key=value} lines (machine, command, rtt_ms, note=...).
 */
public final class Report {
    /** Columns, in table order. */
    static final List<String> COLUMNS = List.of("direct", "ssh", "haproxy2", "mux-tls", "mux-plain", "pool-tls", "mux-tls-small",
            "floor-small");
    static final Map<String, String> COLUMN_TITLES = Map.of(
            "direct", "direct", "ssh", "ssh -R", "haproxy2", "2 HAProxy hops (TCP, reference)",
            "mux-tls", "mux TLS", "mux-plain", "mux plain", "pool-tls", "pool TLS", "mux-tls-small", "mux TLS, 1 GB VPS JVM",
            "floor-small", "bare Netty TLS relay, 1 GB VPS JVM (reference)");
    /** The column a target is judged on unless a metric names another. */
    static final String JUDGED = "mux-tls";
    /** The tunnel as README recommends running it on a 1 GB VPS: the memory targets are judged there. */
    static final String VPS = "mux-tls-small";

    /** How a metric is judged: the target applies to the mux TLS column. */
    enum Rule { NONE, RATIO_AT_LEAST, RTT_AT_MOST, AT_MOST, EQUALS_ZERO }

    record Metric(String id, String label, String unit, boolean higherIsBetter, Rule rule, double bound, String judged) {
        Metric(String id, String label, String unit, boolean higherIsBetter, Rule rule, double bound) {
            this(id, label, unit, higherIsBetter, rule, bound, JUDGED);
        }

        String target(double rttMs) {
            return switch (rule) {
                case NONE -> "";
                case RATIO_AT_LEAST -> String.format(Locale.ROOT, ">= %.2fx direct", bound);
                case RTT_AT_MOST -> String.format(Locale.ROOT, "<= %.2fx RTT (%.0f ms)", bound, bound * rttMs);
                case AT_MOST -> String.format(Locale.ROOT, "<= %s %s", num(bound), unit);
                case EQUALS_ZERO -> "0";
            };
        }

        Boolean met(double value, Double direct, double rttMs) {
            return switch (rule) {
                case NONE -> null;
                case RATIO_AT_LEAST -> direct == null || direct == 0 ? null : value / direct >= bound;
                case RTT_AT_MOST -> value <= bound * rttMs;
                case AT_MOST -> value <= bound;
                case EQUALS_ZERO -> value == 0;
            };
        }
    }

    static final List<Metric> METRICS = List.of(
            new Metric("ka_rps", "HTTP keep-alive, wrk -t1 -c50", "req/s", true, Rule.RATIO_AT_LEAST, 0.50),
            new Metric("ka_p50_ms", "  latency p50", "ms", false, Rule.NONE, 0),
            new Metric("ka_p99_ms", "  latency p99", "ms", false, Rule.NONE, 0),
            new Metric("ka_cpu_us", "  relay CPU per request, both sides", "us", false, Rule.NONE, 0),
            new Metric("close_rps", "HTTP new connection per request (Connection: close), -c50", "req/s", true, Rule.RATIO_AT_LEAST, 0.45),
            new Metric("close_p99_ms", "  latency p99", "ms", false, Rule.NONE, 0),
            new Metric("close_cpu_us", "  relay CPU per request, both sides", "us", false, Rule.NONE, 0),
            new Metric("iperf1_gbit", "iperf3, 1 stream", "Gbit/s", true, Rule.RATIO_AT_LEAST, 0.30),
            new Metric("iperf8_gbit", "iperf3, 8 streams", "Gbit/s", true, Rule.NONE, 0),
            new Metric("link_ttfb_ms", "80 ms RTT link: first byte of a new connection (median)", "ms", false, Rule.RTT_AT_MOST, 1.10),
            new Metric("link_p50_ms", "80 ms RTT link: wrk -c50 keep-alive latency p50", "ms", false, Rule.RTT_AT_MOST, 1.05),
            new Metric("link_p99_ms", "  latency p99", "ms", false, Rule.NONE, 0),
            new Metric("link_rps", "  req/s", "req/s", true, Rule.NONE, 0),
            new Metric("link_iperf1_mbit", "80 ms RTT link: iperf3, 1 stream", "Mbit/s", true, Rule.NONE, 0),
            new Metric("rss_idle_server_mb", "RSS idle, server side", "MB", false, Rule.NONE, 0),
            new Metric("rss_idle_client_mb", "RSS idle, client side", "MB", false, Rule.NONE, 0),
            new Metric("rate_rps", "rate-limited load (wrk + Lua delay), achieved", "req/s", true, Rule.NONE, 0),
            new Metric("rss_1k_server_mb", "RSS at ~1,000 req/s, server side", "MB", false, Rule.AT_MOST, 64, VPS),
            new Metric("rss_1k_client_mb", "RSS at ~1,000 req/s, client side", "MB", false, Rule.AT_MOST, 64, VPS),
            new Metric("rss_10k_server_mb", "RSS holding 10,000 idle connections, server side", "MB", false, Rule.NONE, 0),
            new Metric("rss_10k_client_mb", "RSS holding 10,000 idle connections, client side", "MB", false, Rule.NONE, 0),
            new Metric("per_conn_server_kib", "  RSS per idle connection, server side", "KiB", false, Rule.AT_MOST, 10),
            new Metric("per_conn_client_kib", "  RSS per idle connection, client side", "KiB", false, Rule.AT_MOST, 10),
            new Metric("long_conns", "long connections, one message per 5 s for 60 s", "conns", true, Rule.NONE, 0),
            new Metric("long_lost", "  messages lost", "", false, Rule.EQUALS_ZERO, 0),
            new Metric("long_sent", "  messages sent", "", true, Rule.NONE, 0),
            new Metric("long_p50_ms", "  RTT p50 (merged raw histograms)", "ms", false, Rule.NONE, 0),
            new Metric("long_p99_ms", "  RTT p99", "ms", false, Rule.NONE, 0),
            new Metric("long_added_p99_ms", "  p99 added over direct", "ms", false, Rule.AT_MOST, 10),
            new Metric("long_tool_cpu_pct", "  load tool CPU (share of the machine)", "%", false, Rule.NONE, 0));

    private Report() {
    }

    public static void main(String[] argv) throws IOException {
        Args args = new Args(argv);
        Map<String, Map<String, Double>> results = readResults(Path.of(args.required("results")));
        List<String[]> meta = readMeta(Path.of(args.required("meta")));
        double rtt = Double.parseDouble(metaValue(meta, "rtt_ms", "80"));
        String svgPath = args.string("svg", "");
        String table = table(results, rtt);
        System.out.println(table);
        if (args.has("out")) {
            Path out = Path.of(args.string("out", ""));
            String svgName = svgPath.isEmpty() ? "" : Path.of(svgPath).getFileName().toString();
            Files.writeString(out, document(table, meta, svgName));
            System.out.println("wrote " + out);
        }
        if (!svgPath.isEmpty()) {
            Files.writeString(Path.of(svgPath), Chart.svg(results, rtt));
            System.out.println("wrote " + svgPath);
        }
    }

    static Map<String, Map<String, Double>> readResults(Path path) throws IOException {
        Map<String, Map<String, Double>> r = new LinkedHashMap<>();
        for (String line : Files.readAllLines(path)) {
            String[] f = line.trim().split("\\s+");
            if (f.length != 3 || line.startsWith("#")) {
                continue;
            }
            try {
                r.computeIfAbsent(f[0], k -> new LinkedHashMap<>()).put(f[1], Double.parseDouble(f[2]));
            } catch (NumberFormatException e) {
                // a figure the script could not parse is left out of the table (shown as "-")
            }
        }
        return r;
    }

    static List<String[]> readMeta(Path path) throws IOException {
        List<String[]> m = new ArrayList<>();
        for (String line : Files.readAllLines(path)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                m.add(new String[] {line.substring(0, eq), line.substring(eq + 1)});
            }
        }
        return m;
    }

    static String metaValue(List<String[]> meta, String key, String def) {
        for (String[] kv : meta) {
            if (kv[0].equals(key)) {
                return kv[1];
            }
        }
        return def;
    }

    static String table(Map<String, Map<String, Double>> results, double rttMs) {
        List<String> cols = new ArrayList<>();
        for (String c : COLUMNS) {
            if (results.values().stream().anyMatch(m -> m.containsKey(c))) {
                cols.add(c);
            }
        }
        StringBuilder b = new StringBuilder("| figure | unit |");
        for (String c : cols) {
            b.append(' ').append(COLUMN_TITLES.get(c)).append(" |");
        }
        b.append(" target | judged on | met |\n|---|---|");
        b.append("---:|".repeat(cols.size())).append("---|---|---|\n");
        for (Metric m : METRICS) {
            Map<String, Double> row = results.getOrDefault(m.id(), Map.of());
            if (row.isEmpty()) {
                continue;
            }
            Double direct = row.get("direct");
            Double ssh = row.get("ssh");
            b.append("| ").append(m.label().startsWith("  ") ? "&nbsp;&nbsp;" + m.label().trim() : m.label())
                    .append(" | ").append(m.unit()).append(" |");
            for (String c : cols) {
                Double v = row.get(c);
                b.append(' ').append(v == null ? "-" : cell(v, c, direct, ssh)).append(" |");
            }
            Double judged = row.get(m.judged());
            Boolean met = judged == null ? null : m.met(judged, direct, rttMs);
            b.append(' ').append(m.target(rttMs)).append(" | ")
                    .append(m.rule() == Rule.NONE ? "" : COLUMN_TITLES.get(m.judged())).append(" | ")
                    .append(met == null ? "" : met ? "yes" : "**no**").append(" |\n");
        }
        b.append("\nCells: value (ratio to direct `d`, ratio to ssh -R `s`).");
        return b.toString();
    }

    private static String cell(double v, String column, Double direct, Double ssh) {
        StringBuilder c = new StringBuilder(num(v));
        List<String> ratios = new ArrayList<>();
        if (!column.equals("direct") && direct != null && direct != 0) {
            ratios.add(String.format(Locale.ROOT, "%.2fd", v / direct));
        }
        if (!column.equals("ssh") && !column.equals("direct") && ssh != null && ssh != 0) {
            ratios.add(String.format(Locale.ROOT, "%.2fs", v / ssh));
        }
        if (!ratios.isEmpty()) {
            c.append(" (").append(String.join(" ", ratios)).append(')');
        }
        return c.toString();
    }

    static String num(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e12) {
            return String.format(Locale.ROOT, "%,d", (long) v);
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        return String.format(Locale.ROOT, Math.abs(v) >= 10 ? "%.1f" : "%.2f", v);
    }

    static String document(String table, List<String[]> meta, String svgName) {
        StringBuilder b = new StringBuilder("# Benchmarks\n\n");
        b.append("Generated by `bench/compare.sh`; do not edit by hand, run it again. Everything runs on one machine ")
                .append("over 127.0.0.1: compare the columns of one table, not absolute figures.\n\n");
        for (String key : List.of("machine", "cpu", "kernel", "java", "load", "command")) {
            String v = metaValue(meta, key, "");
            if (!v.isEmpty()) {
                b.append("- ").append(key).append(": ").append(key.equals("command") ? "`" + v + "`" : v).append('\n');
            }
        }
        b.append("\n## Loopback, an 80 ms link, memory and long connections\n\n").append(table).append("\n\n");
        if (!svgName.isEmpty()) {
            b.append("![ratios to direct and latency over the emulated link](").append(svgName).append(")\n\n");
        }
        b.append("### How the figures above are measured\n\n");
        for (String[] kv : meta) {
            if (kv[0].equals("note")) {
                b.append("- ").append(kv[1]).append('\n');
            }
        }
        return b.toString();
    }
}
