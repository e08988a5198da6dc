package dev.tunnel.runtime;

import dev.tunnel.config.ConfigException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;

/**
 * {@code verify -c FILE}: loads a config the way the service would and lists every error. Exits 0
 * and prints {@code FILE: OK} when it is valid, 1 listing every error otherwise. A jar's subclass
 * carries the {@code @Command(name = "verify", ...)} annotation and says how to load its config.
 */
public abstract class VerifyCommand implements Callable<Integer> {

    @Option(names = {"-c", "--config"}, paramLabel = "FILE", required = true, description = "Config file to check.")
    private Path config;

    /** Loads and validates {@code file} as the service would, throwing every error found. */
    protected abstract void check(Path file) throws ConfigException;

    @Override
    public final Integer call() {
        try {
            check(config);
            System.out.println(config + ": OK");
            return 0;
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            return 1;
        }
    }
}
