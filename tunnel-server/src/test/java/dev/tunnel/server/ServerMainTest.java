package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The exit codes and messages scripts rely on: 0 valid, 1 invalid config, 2 usage error. */
@Timeout(30)
class ServerMainTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = new CommandLine(new ServerMain());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void verifyAcceptsAValidConfig(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("frps.toml"), "bindPort = 7000\nauth.token = \"x\"\n");
        assertThat(run("verify", "-c", file.toString())).isZero();
    }

    @Test
    void verifyListsEveryErrorAndExitsOne(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("frps.toml"), "bindPort = 70000\nbindAdr = \"0.0.0.0\"\n");
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        java.io.PrintStream original = System.err;
        System.setErr(new java.io.PrintStream(captured, true));
        int code;
        try {
            code = run("verify", "--config", file.toString());
        } finally {
            System.setErr(original);
        }
        assertThat(code).isEqualTo(1);
        assertThat(captured.toString())
                .contains("bindPort")
                .contains("70000")
                .contains("did you mean \"bindAddr\"");
    }

    @Test
    void missingConfigIsAUsageError() {
        assertThat(run()).isEqualTo(2);
        assertThat(err.toString()).contains("--config");
    }

    @Test
    void unknownOptionIsAUsageError() {
        assertThat(run("--no-such-option")).isEqualTo(2);
    }

    @Test
    void helpAndVersionExitZero() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("verify").contains("--config");
        assertThat(run("--version")).isZero();
        assertThat(out.toString()).contains("tunnel-server");
    }
}
