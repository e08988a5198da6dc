package dev.tunnel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The exit codes and messages scripts rely on, for either jar: 0 valid, 1 invalid config, 2
 * usage error. A subclass names the command and gives one valid and one invalid config.
 */
@Timeout(30)
public abstract class CommandLineContract {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private final Supplier<Object> command;
    private final String name;
    private final String validConfig;
    private final String invalidConfig;
    private final String[] invalidConfigMentions;

    /**
     * @param command               a new instance of the jar's main command ({@code ServerMain::new})
     * @param name                  what {@code --version} prints first ("tunnel-server")
     * @param invalidConfig         a config with an out-of-range value and a misspelled key
     * @param invalidConfigMentions what the errors for {@code invalidConfig} must mention (key, value, suggestion)
     */
    protected CommandLineContract(Supplier<Object> command, String name, String validConfig, String invalidConfig,
                                  String... invalidConfigMentions) {
        this.command = command;
        this.name = name;
        this.validConfig = validConfig;
        this.invalidConfig = invalidConfig;
        this.invalidConfigMentions = invalidConfigMentions;
    }

    private int run(String... args) {
        CommandLine cli = new CommandLine(command.get());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void verifyAcceptsAValidConfig(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("config.toml"), validConfig);
        assertThat(run("verify", "-c", file.toString())).isZero();
    }

    @Test
    void verifyListsEveryErrorAndExitsOne(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("config.toml"), invalidConfig);
        assertThat(verifyErrors("--config", file)).contains(invalidConfigMentions);
    }

    @Test
    void verifyRefusesAFileNestedFiveThousandDeepWithOneLineNotATrace(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("deep.toml"), "x = " + "[{a = ".repeat(2500) + "1" + "}]".repeat(2500) + "\n");
        String errors = verifyErrors("-c", file);
        assertThat(errors).contains(file + ":1: values nested").contains("over the limit of 32")
                .doesNotContain("Exception").doesNotContain("Error:").doesNotContain("\tat ");
    }

    @Test
    void verifyRefusesAFileOverOneMebibyteWithoutReadingIt(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("big.toml"), validConfig + ("#" + "x".repeat(1023) + "\n").repeat(1100));
        assertThat(verifyErrors("-c", file)).contains(file + ": config is " + Files.size(file) + " bytes, over the limit of 1048576")
                .doesNotContain("\tat ");
    }

    @Test
    void verifyNamesAnEmptyCredentialOnAWebServerBeyondLoopback(@TempDir Path dir) throws Exception {
        Path noPassword = Files.writeString(dir.resolve("a.toml"), validConfig
                + "[webServer]\naddr = \"0.0.0.0\"\nport = 7500\nuser = \"admin\"\npassword = \"\"\n");
        assertThat(verifyErrors("-c", noPassword)).contains(noPassword + ":4: webServer.addr: \"0.0.0.0\" is not a loopback"
                + " address, so webServer.user and webServer.password must be set (webServer.password is empty");
        Path noUser = Files.writeString(dir.resolve("b.toml"), validConfig
                + "webServer.addr = \"::\"\nwebServer.port = 7500\nwebServer.password = \"s3cret\"\n");
        assertThat(verifyErrors("-c", noUser)).contains("\"::\" is not a loopback address").contains("webServer.user is empty");
    }

    /** Runs {@code verify}, expects exit code 1 and returns what it printed to stderr. */
    private String verifyErrors(String option, Path file) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(captured, true));
        int code;
        try {
            code = run("verify", option, file.toString());
        } finally {
            System.setErr(original);
        }
        String printed = captured + err.toString();
        assertThat(code).as(printed).isEqualTo(1);
        return printed;
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
        assertThat(out.toString()).contains(name);
    }
}
