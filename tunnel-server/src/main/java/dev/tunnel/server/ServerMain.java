package dev.tunnel.server;

import dev.tunnel.protocol.config.ConfigException;
import dev.tunnel.protocol.config.LogSetup;
import dev.tunnel.protocol.config.PlainStart;
import dev.tunnel.protocol.config.SmallVpsJvm;
import dev.tunnel.protocol.footprint.Footprint;
import dev.tunnel.server.config.ServerConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar tunnel-server.jar -c server.toml}: the command layer only; the work is in
 * {@link TunnelServer}.
 *
 * <p>Exit codes: 0 after a clean stop, 1 when the config is invalid or the server cannot start,
 * 2 for a command-line usage error.
 */
@Command(name = "tunnel-server", mixinStandardHelpOptions = true, versionProvider = ServerMain.VersionProvider.class,
        description = "Runs the tunnel server: clients log in here and their proxies get public ports.",
        subcommands = {ServerMain.Verify.class, CertsCommand.class},
        footer = {"", SmallVpsJvm.HELP_HEADING, SmallVpsJvm.HELP_LINE_1, SmallVpsJvm.HELP_LINE_2, SmallVpsJvm.HELP_LINE_3,
                SmallVpsJvm.HELP_LINE_4, "       -jar tunnel-server.jar -c FILE"})
public final class ServerMain implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "Server config in TOML (frps.toml key names).")
    private Path config;

    public static void main(String[] args) {
        Path direct = PlainStart.configOnly(args);
        if (direct != null) {
            System.exit(PlainStart.run(direct, ServerMain::run));
        }
        System.exit(new CommandLine(new ServerMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (config == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required option: '--config=FILE'");
        }
        return run(config);
    }

    private static int run(Path config) throws Exception {
        ServerConfig cfg;
        try {
            cfg = ServerConfig.load(config);
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            return 1;
        }
        LogSetup.apply(cfg.log.level, cfg.log.to);
        TunnelServer server;
        try {
            server = TunnelServer.start(cfg);
        } catch (Exception e) {
            System.err.println("tunnel-server: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "shutdown"));
        Footprint.afterStartup();
        server.awaitClose();
        return 0;
    }

    /** {@code verify -c FILE}: checks a config and lists every error. */
    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = "Checks a server config: exits 0 if valid, 1 listing every error.")
    static final class Verify implements Callable<Integer> {
        @Option(names = {"-c", "--config"}, paramLabel = "FILE", required = true, description = "Config file to check.")
        private Path config;

        @Override
        public Integer call() {
            try {
                ServerConfig.load(config);
                System.out.println(config + ": OK");
                return 0;
            } catch (ConfigException e) {
                System.err.println(e.getMessage());
                return 1;
            }
        }
    }

    static final class VersionProvider implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"tunnel-server " + Version.get()};
        }
    }
}
