package dev.tunnel.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.testing.CommandLineContract;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** tunnel-client's exit codes and messages (the shared contract). */
class ClientMainTest extends CommandLineContract {
    @Override
    protected Object command() {
        return new ClientMain();
    }

    @Override
    protected String name() {
        return "tunnel-client";
    }

    @Override
    protected String validConfig() {
        return "serverAddr = \"127.0.0.1\"\nauth.token = \"x\"\n";
    }

    @Override
    protected String invalidConfig() {
        return "serverPort = 70000\nserverAdr = \"x\"\n";
    }

    @Override
    protected String[] invalidConfigMentions() {
        return new String[] {"serverPort", "70000", "did you mean \"serverAddr\""};
    }

    /** Only a bare config option skips picocli (README "Running on a 1 GB VPS"); anything else goes through it. */
    @Test
    void plainStartIsJustTheConfigOption() {
        assertThat(ClientMain.plainStart(new String[] {"-c", "a.toml"})).isEqualTo(Path.of("a.toml"));
        assertThat(ClientMain.plainStart(new String[] {"--config", "a.toml"})).isEqualTo(Path.of("a.toml"));
        assertThat(ClientMain.plainStart(new String[] {"--config=a.toml"})).isEqualTo(Path.of("a.toml"));
        assertThat(ClientMain.plainStart(new String[] {"verify", "-c", "a.toml"})).isNull();
        assertThat(ClientMain.plainStart(new String[] {"-c", "--help"})).isNull();
        assertThat(ClientMain.plainStart(new String[] {"--config="})).isNull();
        assertThat(ClientMain.plainStart(new String[] {})).isNull();
    }
}
