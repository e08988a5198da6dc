package dev.tunnel.runtime;

import dev.tunnel.config.ConfigException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The command line both jars share: {@code -c FILE} runs the service, {@code verify -c FILE}
 * checks a config ({@link VerifyCommand}), {@code --version} prints {@code NAME VERSION}
 * ({@link VersionProvider}). A jar's main class extends this, names itself in {@code @Command}
 * and implements {@link #run(Path)}; the command layer stays thin, the work is elsewhere.
 *
 * <p>Exit codes: 0 after a clean stop, 1 when the config is invalid or the service cannot start,
 * 2 for a command-line usage error.
 */
public abstract class TunnelCommand implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "Config file in TOML (frp's key names).")
    private Path config;

    /**
     * Runs {@code command}: a plain {@code -c FILE} goes straight to {@link #run(Path)} without
     * picocli ({@link PlainStart}), anything else through picocli. Exits the JVM with the status.
     */
    protected static void main(String[] args, TunnelCommand command) {
        LogSetup.defaults(); // until the config's [log] table applies, and for the other commands
        Path direct = PlainStart.configOnly(args);
        if (direct != null) {
            System.exit(PlainStart.run(direct, command::run));
        }
        System.exit(new CommandLine(command).execute(args));
    }

    @Override
    public final Integer call() throws Exception {
        if (config == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required option: '--config=FILE'");
        }
        return run(config);
    }

    /** Runs the service from {@code config} until it stops; returns the exit status. */
    protected abstract int run(Path config) throws Exception;

    /** How a jar reads its config file: loads and validates it, throwing every error found. */
    @FunctionalInterface
    protected interface ConfigFile<C> {
        C load(Path file) throws ConfigException;
    }

    /** The config in {@code file}, or null after printing every error in it (the caller then exits 1). */
    protected static <C> C loadOrReport(Path file, ConfigFile<C> config) {
        try {
            return config.load(file);
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            return null;
        }
    }

    /**
     * Makes SIGTERM ({@code kill}, {@code systemctl stop}) a clean stop that exits 0: the JVM's
     * own handling runs the shutdown hooks (which stop the service) and then exits 143, which
     * service managers and scripts read as a failure. Here SIGTERM calls {@code System.exit(0)},
     * which runs the same hooks first. Where signals cannot be handled the JVM's handling stays.
     */
    protected static void exitZeroOnTerm() {
        try {
            Signals.handle("TERM", () -> System.exit(0));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            org.slf4j.LoggerFactory.getLogger(TunnelCommand.class)
                    .debug("SIGTERM keeps the JVM's handling (exit status 143): {}", e.toString());
        }
    }

    /** Prints why the service could not start, prefixed with the command's name; returns status 1. */
    protected static int cannotStart(String name, Exception e) {
        System.err.println(name + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()));
        return 1;
    }

    /** {@code --version}: the command's name and {@link Version#get()}. */
    public static final class VersionProvider implements CommandLine.IVersionProvider {
        @CommandLine.Spec
        private CommandLine.Model.CommandSpec spec;

        @Override
        public String[] getVersion() {
            return new String[] {spec.root().name() + " " + Version.get()};
        }
    }
}
