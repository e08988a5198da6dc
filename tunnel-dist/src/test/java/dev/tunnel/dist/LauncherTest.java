package dev.tunnel.dist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.runtime.SmallVpsJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/tunnel-server and bin/tunnel-client (tunnel-dist/src/bin/launcher.sh under both names): which
 * runtime they pick, the flags they give it, what they say when there is none, and that they start
 * the real shaded jars.
 */
@Timeout(60)
class LauncherTest {
    private static final Path MODULES = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void bundledRuntimeComesFirstAndGetsTheSmallVpsFlagsThenJavaOpts() throws Exception {
        Path home = Fakes.home(dir.resolve("tunnel"), "tunnel-server");
        Fakes.java(home.resolve("runtime"), "17.0.15");
        Path otherJdk = Fakes.java(dir.resolve("jdk"), "21.0.2");

        Run run = Run.of(home.resolve("bin/tunnel-server"), Map.of("JAVA_HOME", otherJdk.toString(), "JAVA_OPTS", "-Xmx512m -Dx=1"),
                "-c", "server.toml");

        List<String> expected = new ArrayList<>(List.of(home.resolve("runtime/bin/java").toString()));
        expected.addAll(Arrays.asList(SmallVpsJvm.FLAGS.split(" ")));
        expected.addAll(List.of("-Xmx512m", "-Dx=1", "-jar", home.resolve("lib/tunnel-server.jar").toString(), "-c", "server.toml"));
        assertThat(run.exit).as(run.err).isZero();
        assertThat(run.outLines()).isEqualTo(expected);
    }

    @Test
    void withoutABundledRuntimeJavaHomeIsUsed() throws Exception {
        Path home = Fakes.home(dir.resolve("tunnel"), "tunnel-client");
        Path jdk = Fakes.java(dir.resolve("jdk"), "21.0.2");

        Run run = Run.of(home.resolve("bin/tunnel-client"), Map.of("JAVA_HOME", jdk.toString()), "--version");

        assertThat(run.exit).as(run.err).isZero();
        assertThat(run.outLines()).first().isEqualTo(jdk.resolve("bin/java").toString());
        assertThat(run.outLines()).endsWith("-jar", home.resolve("lib/tunnel-client.jar").toString(), "--version");
    }

    @Test
    void withoutRuntimeOrJavaHomeTheJavaOnThePathIsUsedAndItsVersionChecked() throws Exception {
        Path home = Fakes.home(dir.resolve("tunnel"), "tunnel-server");
        Path oldJdk = Fakes.java(dir.resolve("old-jdk"), "11.0.2");
        Files.delete(oldJdk.resolve("release"));   // so the launcher must ask `java -version`

        Run run = Run.of(home.resolve("bin/tunnel-server"), Map.of("PATH", Fakes.toolsPath(dir, oldJdk.resolve("bin"))), "--version");

        assertThat(run.exit).isEqualTo(1);
        assertThat(run.err).contains("tunnel-server: needs Java 17 or newer; " + oldJdk.resolve("bin/java")
                + " (from the PATH) is version 11.0.2");
    }

    @Test
    void anOldJavaHomeIsRefusedNamingItsVersion() throws Exception {
        Path home = Fakes.home(dir.resolve("tunnel"), "tunnel-server");
        Path jdk8 = Fakes.java(dir.resolve("jdk8"), "1.8.0_402");

        Run run = Run.of(home.resolve("bin/tunnel-server"), Map.of("JAVA_HOME", jdk8.toString()), "--version");

        assertThat(run.exit).isEqualTo(1);
        assertThat(run.err).contains("needs Java 17 or newer", "(from JAVA_HOME) is version 1.8.0_402");
        assertThat(run.out).isEmpty();
    }

    @Test
    void noJavaAnywhereSaysWhatToInstall() throws Exception {
        Path home = Fakes.home(dir.resolve("tunnel"), "tunnel-client");

        Run run = Run.of(home.resolve("bin/tunnel-client"), Map.of("PATH", Fakes.toolsPath(dir, null)), "--version");

        assertThat(run.exit).isEqualTo(1);
        assertThat(run.err).contains("tunnel-client: no Java runtime", "install Java 17 or newer, or use the release tarball");
    }

    @Test
    void aLauncherLinkedFromElsewhereFindsItsOwnHome() throws Exception {
        Path home = Fakes.home(dir.resolve("usr/lib/tunnel"), "tunnel-server");
        Fakes.java(home.resolve("runtime"), "17.0.15");
        Path usrBin = Files.createDirectories(dir.resolve("usr/bin"));
        Files.createSymbolicLink(usrBin.resolve("tunnel-server"), Path.of("../lib/tunnel/bin/tunnel-server"));

        Run run = Run.of(usrBin.resolve("tunnel-server"), Map.of(), "--version");

        assertThat(run.exit).as(run.err).isZero();
        assertThat(run.outLines()).first().isEqualTo(home.resolve("runtime/bin/java").toString());
    }

    @Test
    void theRealJdkRunsBothShadedJars() throws Exception {
        for (String name : List.of("tunnel-server", "tunnel-client")) {
            Path home = Fakes.home(dir.resolve(name), name);
            Files.delete(home.resolve("lib/" + name + ".jar"));
            Files.createSymbolicLink(home.resolve("lib/" + name + ".jar"), MODULES.resolve(name + "/target/" + name + ".jar"));

            Run run = Run.of(home.resolve("bin/" + name), Map.of("JAVA_HOME", System.getProperty("java.home")), "--help");

            assertThat(run.exit).as(run.err).isZero();
            assertThat(run.out).as(name).contains("Usage: " + name, SmallVpsJvm.HELP_HEADING);
        }
    }
}
