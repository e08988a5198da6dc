package dev.tunnel.server;

import dev.tunnel.config.ConfigException;
import dev.tunnel.runtime.SmallVpsJvm;
import dev.tunnel.runtime.TunnelCommand;
import dev.tunnel.runtime.VerifyCommand;
import dev.tunnel.runtime.Footprint;
import dev.tunnel.server.config.ServerConfig;
import java.nio.file.Path;
import picocli.CommandLine.Command;

/**
 * {@code java -jar tunnel-server.jar -c server.toml}: the command layer only; the work is in
 * {@link TunnelServer}.
 *
 * <p>Exit codes: 0 after a clean stop, 1 when the config is invalid or the server cannot start,
 * 2 for a command-line usage error.
 */
@Command(name = "tunnel-server", mixinStandardHelpOptions = true, versionProvider = TunnelCommand.VersionProvider.class,
        description = "Runs the tunnel server: clients log in here and their proxies get public ports.",
        subcommands = {ServerMain.Verify.class, CertsCommand.class, VerifierCommand.class},
        footer = {"", SmallVpsJvm.HELP_HEADING, SmallVpsJvm.HELP_LINE_1, SmallVpsJvm.HELP_LINE_2, SmallVpsJvm.HELP_LINE_3,
                SmallVpsJvm.HELP_LINE_4, "       -jar tunnel-server.jar -c FILE"})
public final class ServerMain extends TunnelCommand {

    public static void main(String[] args) {
        main(args, new ServerMain());
    }

    @Override
    protected int run(Path config) throws Exception {
        ServerConfig cfg = loadOrReport(config, ServerConfig::load);
        if (cfg == null) {
            return 1;
        }
        cfg.log.apply();
        TunnelServer server;
        try {
            server = TunnelServer.start(cfg);
        } catch (Exception e) {
            return cannotStart("tunnel-server", e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "shutdown"));
        exitZeroOnTerm();
        Footprint.afterStartup();
        server.awaitClose();
        return 0;
    }

    /** {@code verify -c FILE}: checks a config and lists every error. */
    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = "Checks a server config: exits 0 if valid, 1 listing every error.")
    static final class Verify extends VerifyCommand {
        @Override
        protected void check(Path file) throws ConfigException {
            ServerConfig.load(file);
        }
    }
}
