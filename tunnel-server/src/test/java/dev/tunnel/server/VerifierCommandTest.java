package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.auth.TokenVerifier;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code tunnel-server verifier --token-file F}: a verifier of the file's token, the token never echoed. */
@Timeout(30)
class VerifierCommandTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        VerifierCommand command = new VerifierCommand();
        command.stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        command.stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
        return new CommandLine(command).execute(args);
    }

    @Test
    void printsAVerifierOfTheFilesTokenWithoutItsTrailingNewline() throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, "correct horse battery\n");
        assertThat(run("--token-file", file.toString())).isZero();

        String printed = out.toString(StandardCharsets.UTF_8).trim();
        assertThat(printed).startsWith("spake2plus-p256-sha256:");
        assertThat(TokenVerifier.parse(printed).matches("correct horse battery")).isTrue();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("auth.tokenVerifier = \"" + printed + "\"");
        assertThat(out.toString(StandardCharsets.UTF_8) + err).doesNotContain("correct horse");
    }

    @Test
    void anEmptyOrMissingFileIsAnErrorNamingIt() throws Exception {
        Path empty = dir.resolve("empty");
        Files.writeString(empty, "\n");
        assertThat(run("--token-file", empty.toString())).isEqualTo(1);
        assertThat(run("--token-file", dir.resolve("missing").toString())).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("is empty").contains("cannot read --token-file");
        assertThat(out.size()).isZero();
    }
}
