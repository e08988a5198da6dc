package dev.tunnel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class PlainStartTest {
    /** Only a bare config option skips picocli (README "Running on a 1 GB VPS"); anything else goes through it. */
    @Test
    void plainStartIsJustTheConfigOption() {
        assertThat(PlainStart.configOnly(new String[] {"-c", "a.toml"})).isEqualTo(Path.of("a.toml"));
        assertThat(PlainStart.configOnly(new String[] {"--config", "a.toml"})).isEqualTo(Path.of("a.toml"));
        assertThat(PlainStart.configOnly(new String[] {"--config=a.toml"})).isEqualTo(Path.of("a.toml"));
        assertThat(PlainStart.configOnly(new String[] {"verify", "-c", "a.toml"})).isNull();
        assertThat(PlainStart.configOnly(new String[] {"-c", "--help"})).isNull();
        assertThat(PlainStart.configOnly(new String[] {"--config="})).isNull();
        assertThat(PlainStart.configOnly(new String[] {})).isNull();
    }

    @Test
    void anUnexpectedFailureIsExitStatusOne() {
        assertThat(PlainStart.run(Path.of("a.toml"), config -> 0)).isZero();
        assertThat(PlainStart.run(Path.of("a.toml"), config -> {
            throw new IllegalStateException("boom (expected by the test)");
        })).isEqualTo(1);
    }
}
