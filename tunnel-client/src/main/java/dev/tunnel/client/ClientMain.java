package dev.tunnel.client;

import dev.tunnel.client.admin.AdminCommands;
import dev.tunnel.client.config.ClientConfig;
import dev.tunnel.config.ConfigException;
import dev.tunnel.runtime.SmallVpsJvm;
import dev.tunnel.runtime.TunnelCommand;
import dev.tunnel.runtime.VerifyCommand;
import dev.tunnel.runtime.Footprint;
import dev.tunnel.runtime.Hangup;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import picocli.CommandLine.Command;

/**
 * {@code java -jar tunnel-client.jar -c client.toml}: the command layer only; the work is in
 * {@link TunnelClient}.
 *
 * <p>Exit codes: 0 after a clean stop, 1 when the config is invalid, the client cannot start,
 * or the first login fails with {@code loginFailExit = true}; 2 for a command-line usage error.
 */
@Command(name = "tunnel-client", mixinStandardHelpOptions = true, versionProvider = TunnelCommand.VersionProvider.class,
        description = "Runs the tunnel client: dials the server and forwards its proxies to local apps.",
        subcommands = {ClientMain.Verify.class, AdminCommands.Status.class, AdminCommands.Reload.class,
                AdminCommands.Stop.class},
        footer = {"", SmallVpsJvm.HELP_HEADING, SmallVpsJvm.HELP_LINE_1, SmallVpsJvm.HELP_LINE_2, SmallVpsJvm.HELP_LINE_3,
                SmallVpsJvm.HELP_LINE_4, "       -jar tunnel-client.jar -c FILE"})
public final class ClientMain extends TunnelCommand {

    public static void main(String[] args) {
        main(args, new ClientMain());
    }

    @Override
    protected int run(Path config) throws Exception {
        ClientConfig cfg = loadOrReport(config, ClientConfig::load);
        if (cfg == null) {
            return 1;
        }
        cfg.log.apply();
        TunnelClient client;
        try {
            client = TunnelClient.start(cfg);
        } catch (Exception e) {
            return cannotStart("tunnel-client", e);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        ConfigReloader reloader = new ConfigReloader(client, cfg, config);
        if (cfg.webServer.enabled()) {
            reloader.keepParser(); // reloads are expected: the first is as quick as the next
        }
        ExecutorService reloads = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "reload");
            t.setDaemon(true);
            return t;
        });
        Hangup.onHangup(() -> reloads.execute(reloader::reloadAndLog));
        ClientAdmin admin;
        try {
            admin = cfg.webServer.enabled() ? new ClientAdmin(client, reloader, cfg, config, () -> stop(stopped)) : null;
        } catch (RuntimeException e) {
            client.close();
            return cannotStart("tunnel-client", e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (admin != null) {
                admin.close();
            }
            client.close();
            stopped.countDown();
        }, "shutdown"));
        exitZeroOnTerm();
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

    /** {@code POST /api/stop}: ends {@link #run} as SIGTERM would; the shutdown hook then stops the client. */
    private static void stop(CountDownLatch stopped) {
        stopped.countDown();
    }

    /** {@code verify -c FILE}: checks a config and lists every error. */
    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = "Checks a client config: exits 0 if valid, 1 listing every error.")
    static final class Verify extends VerifyCommand {
        @Override
        protected void check(Path file) throws ConfigException {
            ClientConfig.load(file);
        }
    }
}
