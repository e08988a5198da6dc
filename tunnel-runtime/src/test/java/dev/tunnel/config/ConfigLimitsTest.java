package dev.tunnel.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Hostile config files get one error naming the file, the limit and how far past it they go; never a Java error. */
@Timeout(20)
class ConfigLimitsTest {
    private static final int DEEP = 5000;

    private static ConfigException errorsOf(String toml) {
        return catchThrowableOfType(ConfigException.class, () -> SampleConfig.parse(toml));
    }

    @Test
    void arraysNestedFiveThousandDeepAreRefusedWithTheLimitAndTheLine() {
        ConfigException e = errorsOf("serverPort = 7000\nitems = " + "[".repeat(DEEP) + "]".repeat(DEEP) + "\n");
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo("test.toml:2: values nested " + (DEEP + 1)
                + " levels deep, over the limit of 32 (each key segment, array and inline table is one level)");
    }

    @Test
    void inlineTablesNestedFiveThousandDeepAreRefused() {
        ConfigException e = errorsOf("\n\nitems = " + "{a = ".repeat(DEEP) + "1" + "}".repeat(DEEP) + "\n");
        assertThat(e).isNotNull();
        assertThat(e.errors()).hasSize(1);
        assertThat(e.errors().get(0).line()).isEqualTo(3);
        assertThat(e.getMessage()).contains("over the limit of 32");
    }

    @Test
    void arraysOfInlineTablesAcrossLinesAreRefused() {
        ConfigException e = errorsOf("items = [\n" + "{a = [\n".repeat(DEEP) + "1" + "]}".repeat(DEEP) + "]\n");
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).startsWith("test.toml:").contains("over the limit of 32");
    }

    @Test
    void dottedKeysAndTableHeadersCountTheirSegments() {
        String path = "a" + ".a".repeat(DEEP - 1);
        assertThat(errorsOf(path + " = 1\n").getMessage())
                .isEqualTo("test.toml:1: values nested " + DEEP + " levels deep, over the limit of 32"
                        + " (each key segment, array and inline table is one level)");
        assertThat(errorsOf("[" + path + "]\nx = 1\n").getMessage()).contains("over the limit of 32");
        assertThat(errorsOf("[[" + path + "]]\n").getMessage()).contains("over the limit of 32");
    }

    @Test
    void bracketsInStringsAndCommentsDoNotCount() {
        String brackets = "[{".repeat(DEEP);
        ConfigException e = errorsOf("serverAddr = \"" + brackets + "\" # " + brackets + "\n"
                + "serverPort = 70000\n");
        assertThat(e.getMessage()).isEqualTo("test.toml:2: serverPort: 70000 (expected: 1-65535)");
    }

    @Test
    void thirtyTwoLevelsAreStillParsed() {
        // key (1) + 31 arrays = 32: passes the limit, then fails as the wrong type, not as too deep
        ConfigException e = errorsOf("serverAddr = " + "[".repeat(31) + "]".repeat(31) + "\n");
        assertThat(e.getMessage()).doesNotContain("nested").contains("serverAddr");
        assertThat(errorsOf("serverAddr = " + "[".repeat(32) + "]".repeat(32) + "\n").getMessage())
                .contains("values nested 33 levels deep");
    }

    @Test
    void aFileOverOneMebibyteIsRefusedBeforeItIsRead(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("big.toml");
        String comment = "# " + "x".repeat(1021) + "\n"; // 1 KiB a line
        Files.writeString(file, "serverPort = 7000\n" + comment.repeat(2048), StandardCharsets.UTF_8);
        long size = Files.size(file);
        ConfigLoader<SampleConfig> loader = new ConfigLoader<>(SampleConfig.class, SampleConfig.UNSUPPORTED,
                (cfg, errors) -> { });
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> loader.load(file));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo(file + ": config is " + size + " bytes, over the limit of 1048576 (1 MiB)");
    }

    @Test
    void textOverOneMebibyteIsRefusedCountingUtf8Bytes() {
        String text = "serverPort = 7000\n# " + "é".repeat(ConfigLoader.MAX_BYTES / 2) + "\n"; // 2 bytes a char
        ConfigException e = errorsOf(text);
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).startsWith("test.toml: config is " + text.getBytes(StandardCharsets.UTF_8).length
                + " bytes, over the limit of 1048576");
        assertThat(errorsOf("serverPort = 7000\n# " + "x".repeat(ConfigLoader.MAX_BYTES - 40) + "\n")).isNull();
    }
}
