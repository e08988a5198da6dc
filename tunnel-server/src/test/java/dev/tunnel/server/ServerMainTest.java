package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.testing.CommandLineContract;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** tunnel-server's exit codes and messages (the shared contract). */
class ServerMainTest extends CommandLineContract {
    @Override
    protected Object command() {
        return new ServerMain();
    }

    @Override
    protected String name() {
        return "tunnel-server";
    }

    @Override
    protected String validConfig() {
        return "bindPort = 7000\nauth.token = \"x\"\n";
    }

    @Override
    protected String invalidConfig() {
        return "bindPort = 70000\nbindAdr = \"0.0.0.0\"\n";
    }

    @Override
    protected String[] invalidConfigMentions() {
        return new String[] {"bindPort", "70000", "did you mean \"bindAddr\""};
    }

    /** Only a bare config option skips picocli (README "Running on a 1 GB VPS"); anything else goes through it. */
    @Test
    void plainStartIsJustTheConfigOption() {
        assertThat(ServerMain.plainStart(new String[] {"-c", "a.toml"})).isEqualTo(Path.of("a.toml"));
        assertThat(ServerMain.plainStart(new String[] {"--config", "a.toml"})).isEqualTo(Path.of("a.toml"));
        assertThat(ServerMain.plainStart(new String[] {"--config=a.toml"})).isEqualTo(Path.of("a.toml"));
        assertThat(ServerMain.plainStart(new String[] {"verify", "-c", "a.toml"})).isNull();
        assertThat(ServerMain.plainStart(new String[] {"-c", "--help"})).isNull();
        assertThat(ServerMain.plainStart(new String[] {"--config="})).isNull();
        assertThat(ServerMain.plainStart(new String[] {})).isNull();
    }
}
