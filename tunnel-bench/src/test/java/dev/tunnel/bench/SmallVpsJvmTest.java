package dev.tunnel.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.runtime.SmallVpsJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One set of small-VPS JVM flags: what --help prints, what the README recommends, what compare.sh measures, what the launchers (and so the systemd units) run. */
@Timeout(10)
class SmallVpsJvmTest {
    private static final Path ROOT = Path.of("..");

    @Test
    void helpLinesSpellTheFlagsWithinEightyColumns() {
        List<String> lines = List.of(SmallVpsJvm.HELP_HEADING, SmallVpsJvm.HELP_LINE_1, SmallVpsJvm.HELP_LINE_2,
                SmallVpsJvm.HELP_LINE_3, SmallVpsJvm.HELP_LINE_4);
        assertThat(flags(String.join(" ", lines))).isEqualTo(flags(SmallVpsJvm.FLAGS));
        assertThat(lines).allSatisfy(line -> assertThat(line.length()).as(line).isLessThan(80));
    }

    @Test
    void compareShMeasuresExactlyTheRecommendedFlags() throws Exception {
        Matcher m = Pattern.compile("(?m)^SMALL_JVM=\"([^\"]*)\"").matcher(Files.readString(ROOT.resolve("bench/compare.sh")));
        assertThat(m.find()).as("SMALL_JVM=\"...\" in bench/compare.sh").isTrue();
        assertThat(flags(m.group(1))).isEqualTo(flags(SmallVpsJvm.FLAGS));
    }

    @Test
    void readmeRecommendsExactlyTheseFlags() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        int section = readme.indexOf("## Running on a 1 GB VPS");
        assertThat(section).as("README section \"Running on a 1 GB VPS\"").isNotNegative();
        int start = readme.indexOf("```sh\n", section) + 6;
        String block = readme.substring(start, readme.indexOf("```", start));
        assertThat(flags(block)).isEqualTo(flags(SmallVpsJvm.FLAGS));
    }

    @Test
    void launcherStartsTheJarsWithExactlyTheseFlags() throws Exception {
        Matcher m = Pattern.compile("(?m)^SMALL_VPS_FLAGS=\"([^\"]*)\"")
                .matcher(Files.readString(ROOT.resolve("tunnel-dist/src/bin/launcher.sh")));
        assertThat(m.find()).as("SMALL_VPS_FLAGS=\"...\" in tunnel-dist/src/bin/launcher.sh").isTrue();
        assertThat(flags(m.group(1))).isEqualTo(flags(SmallVpsJvm.FLAGS));
    }

    @Test
    void systemdUnitsStartTheLaunchers() throws Exception {
        for (String side : List.of("server", "client")) {
            String unit = Files.readString(ROOT.resolve("config/systemd/tunnel-" + side + ".service"));
            assertThat(unit).as(side).containsPattern("(?m)^ExecStart=/usr/bin/tunnel-" + side + " -c /etc/tunnel/" + side + ".toml$");
        }
    }

    /** The -X and -D options of a command line, in order. */
    private static List<String> flags(String commandLine) {
        return Arrays.stream(commandLine.split("\\s+")).filter(t -> t.startsWith("-X") || t.startsWith("-D")).toList();
    }
}
