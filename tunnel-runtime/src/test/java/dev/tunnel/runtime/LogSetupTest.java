package dev.tunnel.runtime;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(10)
class LogSetupTest {

    @AfterEach
    void backToConsole() {
        LogSetup.apply("info", "console");
    }

    @Test
    void writesPatternToFileAtLevel(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tunnel.log");
        LogSetup.apply("warn", file.toString());
        LoggerFactory.getLogger(LogSetupTest.class).info("hidden");
        LoggerFactory.getLogger(LogSetupTest.class).warn("shown {}", 42);
        String text = Files.readString(file);
        assertThat(text).doesNotContain("hidden");
        assertThat(text).matches("(?s)\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  \\[.+] LogSetupTest - shown 42\\R");
    }

    @Test
    void writesStackTraceAfterTheLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tunnel.log");
        LogSetup.apply("info", file.toString());
        LoggerFactory.getLogger("a.b.Named").error("failed", new IllegalStateException("boom"));
        String text = Files.readString(file);
        assertThat(text).matches("(?s)\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} ERROR \\[.+] Named - failed\\R"
                + "java\\.lang\\.IllegalStateException: boom\\R\\tat .+\\R");
    }

    @Test
    void rejectsUnknownLevel() {
        assertThatThrownBy(() -> LogSetup.apply("verbose", "console"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("log.level: \"verbose\" (expected one of: trace, debug, info, warn, error)");
    }
}
