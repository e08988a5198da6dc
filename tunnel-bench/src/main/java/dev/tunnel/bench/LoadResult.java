package dev.tunnel.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * The outcome of a {@link LongConnLoad} run, or of several merged: counters are summed and the
 * raw histograms are added, so percentiles are computed over every sample.
 */
public record LoadResult(long attempted, long open, LoadStats.Snapshot stats, double connectSeconds, double wallSeconds,
                         double cpuSeconds, double busiestLoopCpuSeconds, int cores) {

    public long sent() {
        return stats.sent();
    }

    public long received() {
        return stats.received();
    }

    public long lost() {
        return stats.lost();
    }

    public long duplicated() {
        return stats.duplicated();
    }

    public long outOfOrder() {
        return stats.outOfOrder();
    }

    public long connectFailed() {
        return stats.connectFailed();
    }

    /** Percentile of the round trip in milliseconds, over every sample. */
    public double rttMillis(double percentile) {
        return stats.rtt().getValueAtPercentile(percentile) / 1000.0;
    }

    public double maxRttMillis() {
        return stats.rtt().getMaxValue() / 1000.0;
    }

    /** The load tool's CPU as a share of the machine, in percent. */
    public double cpuPercent() {
        return wallSeconds <= 0 ? 0 : 100 * cpuSeconds / wallSeconds / cores;
    }

    public Map<String, String> figures() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("connections", Long.toString(attempted));
        m.put("open", Long.toString(open));
        m.put("connect_failed", Long.toString(stats.connectFailed()));
        m.put("closed_early", Long.toString(stats.closedEarly()));
        m.put("sent", Long.toString(sent()));
        m.put("received", Long.toString(received()));
        m.put("lost", Long.toString(lost()));
        m.put("duplicated", Long.toString(duplicated()));
        m.put("out_of_order", Long.toString(outOfOrder()));
        m.put("corrupt", Long.toString(stats.corrupt()));
        m.put("p50_ms", fmt(rttMillis(50)));
        m.put("p95_ms", fmt(rttMillis(95)));
        m.put("p99_ms", fmt(rttMillis(99)));
        m.put("max_ms", fmt(maxRttMillis()));
        m.put("cpu_pct", fmt(cpuPercent()));
        m.put("busiest_loop_pct", fmt(wallSeconds <= 0 ? 0 : 100 * busiestLoopCpuSeconds / wallSeconds));
        return m;
    }

    public String report() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "connections: %d attempted, %d open at the end, %d connect failures, %d closed early%s%n",
                attempted, open, stats.connectFailed(), stats.closedEarly(),
                stats.firstError().isEmpty() ? "" : " (first error: " + stats.firstError() + ")"));
        b.append(String.format(Locale.ROOT, "messages: sent %d, received %d, lost %d, duplicated %d, out of order %d, corrupt %d%n",
                sent(), received(), lost(), duplicated(), outOfOrder(), stats.corrupt()));
        b.append(String.format(Locale.ROOT, "rtt ms (merged from %d raw histograms, %d samples): p50 %s  p95 %s  p99 %s  max %s%n",
                stats.histograms(), stats.rtt().getTotalCount(), fmt(rttMillis(50)), fmt(rttMillis(95)),
                fmt(rttMillis(99)), fmt(maxRttMillis())));
        b.append(String.format(Locale.ROOT, "load tool cpu: %.1f s in %.1f s = %.1f%% of %d cores; busiest event loop %.1f%% of one core%n",
                cpuSeconds, wallSeconds, cpuPercent(), cores, wallSeconds <= 0 ? 0 : 100 * busiestLoopCpuSeconds / wallSeconds));
        if (stats.late() != null) { // one process's run; merged results have each its own start
            b.append(stats.late().report()).append(System.lineSeparator());
        }
        StringBuilder line = new StringBuilder("RESULT");
        figures().forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
        return b.append(line).toString();
    }

    /** Writes the counters and the raw histogram, for {@link #merge}. */
    public void write(Path path) throws IOException {
        Histogram h = stats.rtt();
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        h.encodeIntoCompressedByteBuffer(buf);
        buf.flip();
        byte[] bytes = new byte[buf.remaining()];
        buf.get(bytes);
        String text = String.join(" ", List.of(
                "counters", Long.toString(attempted), Long.toString(open), Long.toString(stats.sent()),
                Long.toString(stats.received()), Long.toString(stats.duplicated()), Long.toString(stats.outOfOrder()),
                Long.toString(stats.corrupt()), Long.toString(stats.connectFailed()), Long.toString(stats.closedEarly()),
                Double.toString(connectSeconds), Double.toString(wallSeconds), Double.toString(cpuSeconds),
                Double.toString(busiestLoopCpuSeconds), Integer.toString(cores), Integer.toString(stats.histograms())))
                + "\nhistogram " + Base64.getEncoder().encodeToString(bytes) + "\n";
        Files.writeString(path, text);
    }

    public static LoadResult read(Path path) throws IOException {
        String[] c = null;
        Histogram h = null;
        for (String line : Files.readAllLines(path)) {
            if (line.startsWith("counters ")) {
                c = line.split(" ");
            } else if (line.startsWith("histogram ")) {
                byte[] bytes = Base64.getDecoder().decode(line.substring("histogram ".length()).trim());
                try {
                    h = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
                } catch (DataFormatException e) {
                    throw new IOException(path + ": bad histogram: " + e.getMessage(), e);
                }
            }
        }
        if (c == null || c.length != 16 || h == null) {
            throw new IOException(path + ": not a LongConnLoad result (expected a counters line with 15 fields and a histogram line)");
        }
        LoadStats.Snapshot s = new LoadStats.Snapshot(Long.parseLong(c[3]), Long.parseLong(c[4]), Long.parseLong(c[5]),
                Long.parseLong(c[6]), Long.parseLong(c[7]), Long.parseLong(c[8]), Long.parseLong(c[9]), "", h,
                Integer.parseInt(c[15]), null);
        return new LoadResult(Long.parseLong(c[1]), Long.parseLong(c[2]), s, Double.parseDouble(c[10]),
                Double.parseDouble(c[11]), Double.parseDouble(c[12]), Double.parseDouble(c[13]), Integer.parseInt(c[14]));
    }

    /** Sums the counters and CPU, adds the raw histograms; wall time is the longest part's. */
    public static LoadResult merge(List<LoadResult> parts) {
        Histogram h = LoadStats.newHistogram();
        long attempted = 0, open = 0, sent = 0, received = 0, dup = 0, ooo = 0, corrupt = 0, failed = 0, early = 0;
        double connect = 0, wall = 0, cpu = 0, busiest = 0;
        int histograms = 0, cores = 1;
        for (LoadResult r : parts) {
            LoadStats.Snapshot s = r.stats;
            h.add(s.rtt());
            attempted += r.attempted;
            open += r.open;
            sent += s.sent();
            received += s.received();
            dup += s.duplicated();
            ooo += s.outOfOrder();
            corrupt += s.corrupt();
            failed += s.connectFailed();
            early += s.closedEarly();
            connect = Math.max(connect, r.connectSeconds);
            wall = Math.max(wall, r.wallSeconds);
            cpu += r.cpuSeconds;
            busiest = Math.max(busiest, r.busiestLoopCpuSeconds);
            histograms += s.histograms();
            cores = r.cores;
        }
        LoadStats.Snapshot s = new LoadStats.Snapshot(sent, received, dup, ooo, corrupt, failed, early, "", h, histograms, null);
        return new LoadResult(attempted, open, s, connect, wall, cpu, busiest, cores);
    }

    private static String fmt(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
