package dev.tunnel.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Lines up the processes of one {@link LongConnLoad} run at the phases where their load changes:
 * each marks a phase as reached with a file in a shared directory and waits until every party has.
 * Without it, the process whose connections came up first starts recording while another still
 * opens its thousands of connections through the same tunnel, and the first to finish closes all
 * of its connections while another still records: each one's ramp and teardown landed in the
 * other's measured round trips (one process at p99 1 s, the other at 8 ms, in the same run).
 *
 * <p>Threading: one caller at a time (the load's main thread).
 */
final class ProcessBarrier {
    /** No other process: every phase is passed at once. */
    static final ProcessBarrier NONE = new ProcessBarrier(null, 1, 0);

    private final Path dir;
    private final int parties;
    private final long timeoutMillis;
    /** This party's name in the marker files. */
    private final String self = ProcessHandle.current().pid() + "-" + UUID.randomUUID();

    /**
     * @param dir           directory shared by the parties (created if missing); null for {@link #NONE}
     * @param parties       how many processes take part
     * @param timeoutMillis how long to wait at a phase before going on alone (said on stderr)
     */
    ProcessBarrier(Path dir, int parties, long timeoutMillis) {
        this.dir = dir;
        this.parties = parties;
        this.timeoutMillis = timeoutMillis;
    }

    /** Marks {@code phase} reached by this process and waits for the others; false if it timed out. */
    boolean await(String phase) throws InterruptedException {
        if (dir == null || parties <= 1) {
            return true;
        }
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(phase + "-" + self), "");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot mark phase " + phase + " in " + dir, e);
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (reached(phase) < parties) {
            if (System.nanoTime() - deadline > 0) {
                System.err.printf("barrier %s: %d of %d processes after %d ms; going on without the rest%n",
                        phase, reached(phase), parties, timeoutMillis);
                return false;
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        return true;
    }

    private long reached(String phase) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(phase + "-")).count();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + dir, e);
        }
    }
}
