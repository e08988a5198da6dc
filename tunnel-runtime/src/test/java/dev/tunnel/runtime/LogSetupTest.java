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
    void nettyLogsAtItsOwnLevelWhateverTheTunnelsLevel(@TempDir Path dir) throws Exception {
        Path quiet = dir.resolve("quiet.log");
        LogSetup.apply("debug", quiet.toString(), 0, "warn");
        LoggerFactory.getLogger("io.netty.util.internal.PlatformDependent").debug("-Dio.netty.noUnsafe: false");
        LoggerFactory.getLogger("dev.tunnel.Some").debug("tunnel debug");
        assertThat(Files.readString(quiet)).contains("tunnel debug").doesNotContain("io.netty");

        Path asked = dir.resolve("asked.log");
        LogSetup.apply("info", asked.toString(), 0, "debug");
        LoggerFactory.getLogger("io.netty.util.internal.PlatformDependent").debug("-Dio.netty.noUnsafe: false");
        assertThat(Files.readString(asked)).contains("-Dio.netty.noUnsafe");
    }

    @Test
    void rejectsUnknownNettyLevel() {
        assertThatThrownBy(() -> LogSetup.apply("info", "console", 0, "loud"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("log.nettyLevel: \"loud\" (expected one of: trace, debug, info, warn, error)");
    }

    @Test
    void rejectsUnknownLevel() {
        assertThatThrownBy(() -> LogSetup.apply("verbose", "console"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("log.level: \"verbose\" (expected one of: trace, debug, info, warn, error)");
    }

    @Test
    void keepsMaxDaysOfRolledFiles(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("tunnel.log");
        java.time.LocalDate today = java.time.LocalDate.now();
        Path old = Files.writeString(dir.resolve("tunnel.log." + today.minusDays(10)), "old\n");
        Path recent = Files.writeString(dir.resolve("tunnel.log." + today.minusDays(1)), "recent\n");
        LogSetup.apply("info", file.toString(), 3);
        LoggerFactory.getLogger(LogSetupTest.class).info("line");
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> !Files.exists(old));
        assertThat(recent).exists();
        assertThat(Files.readString(file)).contains("line");
    }

    @Test
    void rejectsNegativeMaxDays() {
        assertThatThrownBy(() -> LogSetup.apply("info", "console", -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("log.maxDays: -1 (expected: 0 or more)");
    }
}
