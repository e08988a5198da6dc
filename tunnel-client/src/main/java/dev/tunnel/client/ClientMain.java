package dev.tunnel.client;

import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.protocol.config.ConfigException;
import dev.tunnel.protocol.config.LogSetup;
import dev.tunnel.protocol.config.PlainStart;
import dev.tunnel.protocol.config.SmallVpsJvm;
import dev.tunnel.protocol.footprint.Footprint;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar tunnel-client.jar -c client.toml}: the command layer only; the work is in
 * {@link TunnelClient}.
 *
 * <p>Exit codes: 0 after a clean stop, 1 when the config is invalid, the client cannot start,
 * or the first login fails with {@code loginFailExit = true}; 2 for a command-line usage error.
 */
@Command(name = "tunnel-client", mixinStandardHelpOptions = true, versionProvider = ClientMain.VersionProvider.class,
        description = "Runs the tunnel client: dials the server and forwards its proxies to local apps.",
        subcommands = ClientMain.Verify.class,
        footer = {"", SmallVpsJvm.HELP_HEADING, SmallVpsJvm.HELP_LINE_1, SmallVpsJvm.HELP_LINE_2, SmallVpsJvm.HELP_LINE_3,
                SmallVpsJvm.HELP_LINE_4, "       -jar tunnel-client.jar -c FILE"})
public final class ClientMain implements Callable<Integer> {

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "Client config in TOML (frpc.toml key names).")
    private Path config;

    public static void main(String[] args) {
        Path direct = PlainStart.configOnly(args);
        if (direct != null) {
            System.exit(PlainStart.run(direct, ClientMain::run));
        }
        System.exit(new CommandLine(new ClientMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (config == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required option: '--config=FILE'");
        }
        return run(config);
    }

    private static int run(Path config) throws Exception {
        ClientConfig cfg;
        try {
            cfg = ClientConfig.load(config);
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            return 1;
        }
        LogSetup.apply(cfg.log.level, cfg.log.to);
        TunnelClient client;
        try {
            client = TunnelClient.start(cfg);
        } catch (Exception e) {
            System.err.println("tunnel-client: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            client.close();
            stopped.countDown();
        }, "shutdown"));
        try {
            client.firstLogin().get();
        } catch (ExecutionException e) {
            if (cfg.loginFailExit) {
                System.err.println("tunnel-client: login failed: " + e.getCause().getMessage());
                return 1;
            }
        }
        Footprint.afterStartup();
        stopped.await();
        return 0;
    }

    /** {@code verify -c FILE}: checks a config and lists every error. */
    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = "Checks a client config: exits 0 if valid, 1 listing every error.")
    static final class Verify implements Callable<Integer> {
        @Option(names = {"-c", "--config"}, paramLabel = "FILE", required = true, description = "Config file to check.")
        private Path config;

        @Override
        public Integer call() {
            try {
                ClientConfig.load(config);
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
            return new String[] {"tunnel-client " + Version.get()};
        }
    }
}
