package dev.tunnel.e2e;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One of the jars' main classes run as a real process on this test's class path, as a user runs
 * it: its standard output and error (merged) are kept line by line. {@link #close} kills it if
 * the test left it running.
 *
 * <p>Threading: a daemon thread reads the output; {@link #lines()} may be called from any thread.
 */
final class JavaProcess implements AutoCloseable {
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private JavaProcess(Process process) {
        this.process = process;
        this.reader = new Thread(this::readOutput, "output-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code mainClass} with {@code args}, in {@code dir}. */
    static JavaProcess start(Class<?> mainClass, Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener", "-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(List.of(args));
        return new JavaProcess(new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start());
    }

    private void readOutput() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (lines) {
                    lines.add(line);
                }
            }
        } catch (IOException e) {
            // the process ended: what it printed is kept
        }
    }

    /** What it printed so far. */
    List<String> lines() {
        synchronized (lines) {
            return new ArrayList<>(lines);
        }
    }

    /** Waits until a line contains {@code text}. */
    JavaProcess awaitLine(String text, Duration atMost) {
        await(text + " in the output of " + process.pid()).atMost(atMost)
                .until(() -> process.isAlive() ? lines().stream().anyMatch(l -> l.contains(text))
                        : lines().stream().anyMatch(l -> l.contains(text)) || failEnded(text));
        return this;
    }

    private boolean failEnded(String text) {
        throw new AssertionError("ended (" + process.exitValue() + ") without printing \"" + text + "\": " + lines());
    }

    /**
     * Sends SIGTERM and returns the exit status, all output read. Through the process's handle:
     * {@link Process#destroy()} sends the same signal but also closes our end of its output, so
     * the lines it logs while it stops would be lost.
     */
    int terminate(Duration atMost) throws InterruptedException {
        process.toHandle().destroy();
        return exitStatus(atMost);
    }

    /** Waits for the end and returns the exit status, all output read. */
    int exitStatus(Duration atMost) throws InterruptedException {
        if (!process.waitFor(atMost.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("still running after " + atMost + ": " + lines());
        }
        reader.join(atMost.toMillis());
        return process.exitValue();
    }

    @Override
    public void close() {
        process.destroyForcibly();
    }
}
