package dev.tunnel.runtime;

import java.nio.file.Path;

/**
 * The command line a service starts with, {@code -c FILE}, run without picocli: its ~170
 * classes would otherwise stay loaded for the life of the process (about 1.5 MB of the resident
 * memory docs/performance.md "Memory on a 1 GB VPS" counts). Every other command line goes through picocli.
 */
public final class PlainStart {
    private PlainStart() {
    }

    /** What runs the tunnel from a config file; returns the exit status. */
    @FunctionalInterface
    public interface Runner {
        int run(Path config) throws Exception;
    }

    /**
     * The config file when the command line is just {@code -c FILE}, {@code --config FILE} or
     * {@code --config=FILE}, else null.
     */
    public static Path configOnly(String[] args) {
        if (args.length == 2 && (args[0].equals("-c") || args[0].equals("--config"))
                && !args[1].isEmpty() && !args[1].startsWith("-")) {
            return Path.of(args[1]);
        }
        if (args.length == 1 && args[0].startsWith("--config=") && args[0].length() > "--config=".length()) {
            return Path.of(args[0].substring("--config=".length()));
        }
        return null;
    }

    /** Runs {@code runner} with picocli's handling of an unexpected exception: stack trace, exit status 1. */
    public static int run(Path config, Runner runner) {
        try {
            return runner.run(config);
        } catch (Exception e) {
            e.printStackTrace();
            return 1;
        }
    }
}
