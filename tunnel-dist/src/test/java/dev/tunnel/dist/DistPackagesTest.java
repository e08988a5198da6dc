package dev.tunnel.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tunnel.runtime.SmallVpsJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code mvn -Pdist} built in tunnel-dist/target: the tarball, the .deb and the two image tars
 * (docs/install.md). Runs in the dist profile's verify phase, after they exist.
 */
@Tag("dist")
@Timeout(300)
class DistPackagesTest {
    private static final Path TARGET = Path.of(System.getProperty("dist.dir", "target"));
    private static final String NAME = System.getProperty("dist.name");
    private static final String VERSION = NAME.split("-", 2)[1].replaceFirst("-linux-.*", "");

    @TempDir
    Path dir;

    @Test
    void tarballHoldsLaunchersJarsRuntimeSamplesAndUnits() throws Exception {
        Map<String, Integer> modes = Archives.tarModes(TARGET.resolve(NAME + ".tar.gz"));

        assertThat(modes).containsEntry(NAME + "/bin/tunnel-server", 0755).containsEntry(NAME + "/bin/tunnel-client", 0755)
                .containsEntry(NAME + "/runtime/bin/java", 0755)
                .containsKeys(NAME + "/lib/tunnel-server.jar", NAME + "/lib/tunnel-client.jar",
                        NAME + "/config/server.toml", NAME + "/config/client_full.toml",
                        NAME + "/systemd/tunnel-server.service", NAME + "/systemd/tunnel-client.service",
                        NAME + "/runtime/lib/server/classes.jsa", NAME + "/install.md");
    }

    @Test
    void bundledRuntimeAloneRunsBothJarsOnEveryConfigFormatAndWritesCertificates() throws Exception {
        Path home = TARGET.resolve(NAME).toAbsolutePath();
        Map<String, String> noJava = Map.of("PATH", Fakes.toolsPath(dir, null));
        Path yaml = Files.writeString(dir.resolve("server.yaml"), "bindPort: 7000\nauth:\n  token: \"secret\"\n");
        Path json = Files.writeString(dir.resolve("client.json"), "{\"serverAddr\": \"127.0.0.1\", \"auth\": {\"token\": \"secret\"}}");

        for (List<String> command : List.of(
                List.of("tunnel-server", "verify", "-c", home.resolve("config/server_full.toml").toString()),
                List.of("tunnel-server", "verify", "-c", yaml.toString()),
                List.of("tunnel-client", "verify", "-c", home.resolve("config/client_full.toml").toString()),
                List.of("tunnel-client", "verify", "-c", json.toString()),
                List.of("tunnel-server", "certs", "--out", dir.resolve("pki").toString(), "--server-name", "vps.example", "--client", "home"))) {
            List<String> absolute = new java.util.ArrayList<>(command);
            absolute.set(0, home.resolve("bin").resolve(command.get(0)).toString());
            Run run = Run.of(absolute, noJava, Path.of(".."));   // client_full.toml serves ./docs
            assertThat(run.exit).as(command + "\n" + run.out + run.err).isZero();
        }
        assertThat(dir.resolve("pki")).isDirectoryContaining("glob:**/server.crt").isDirectoryContaining("glob:**/client-home.key");
        assertThat(Files.readString(home.resolve("runtime/release"))).contains("jdk.crypto.ec").doesNotContain("java.desktop");
    }

    @Test
    void debPutsLaunchersOnThePathSamplesAsConffilesAndStartsNothing() throws Exception {
        Path deb = TARGET.resolve("tunnel_" + VERSION.replace('-', '~') + "_amd64.deb");

        Run contents = Run.of(List.of("dpkg-deb", "-c", deb.toString()), Map.of());
        Run conffiles = Run.of(List.of("dpkg-deb", "-I", deb.toString(), "conffiles"), Map.of());
        Run postinst = Run.of(List.of("dpkg-deb", "-I", deb.toString(), "postinst"), Map.of());

        assertThat(contents.out).containsPattern("lrwxrwxrwx root/root .* \\./usr/bin/tunnel-server -> \\.\\./lib/tunnel/bin/tunnel-server")
                .containsPattern("-rw-r----- root/root .* \\./etc/tunnel/server\\.toml")
                .contains("./lib/systemd/system/tunnel-server.service", "./usr/lib/tunnel/runtime/bin/java");
        assertThat(conffiles.out.lines()).containsExactly("/etc/tunnel/server.toml", "/etc/tunnel/client.toml");
        assertThat(postinst.out).contains("useradd --system", "chgrp tunnel").doesNotContainPattern("systemctl (start|enable|restart)");
    }

    @Test
    void imagesRunTheirJarAsUser65532WithTheFlagsAndConfigInEtcTunnel() throws Exception {
        Map<String, List<String>> baseLayers = new java.util.HashMap<>();
        for (String side : List.of("server", "client")) {
            ImageTar image = ImageTar.read(TARGET.resolve("tunnel-" + side + "-" + VERSION + "-image.tar"));

            assertThat(image.entrypoint()).containsExactly("/opt/tunnel/runtime/bin/java", "-jar", "/opt/tunnel/lib/tunnel-" + side + ".jar");
            assertThat(image.cmd()).containsExactly("-c", "/etc/tunnel/" + side + ".toml");
            assertThat(image.user()).isEqualTo("65532:65532");
            assertThat(image.env()).contains("JDK_JAVA_OPTIONS=" + SmallVpsJvm.FLAGS);
            // Jib's class path files, then the runtime (base), then the jar (server or client)
            assertThat(image.layers()).hasSize(3);
            assertThat(image.files(0)).containsOnlyKeys("app", "app/jib-classpath-file", "app/jib-main-class-file");
            assertThat(image.files(1)).containsEntry("opt/tunnel/runtime/bin/java", 0755).containsEntry("tmp", 0777)
                    .containsKeys("opt/tunnel/runtime/lib/libjli.so", "lib/x86_64-linux-gnu/libc.so.6",
                            "lib64/ld-linux-x86-64.so.2", "etc/passwd")
                    .noneSatisfy((file, mode) -> assertThat(file).contains("target/image"));   // no build paths
            assertThat(image.files(2)).containsKeys("opt/tunnel/lib/tunnel-" + side + ".jar", "etc/tunnel/" + side + ".toml");
            baseLayers.put(side, image.layers().subList(1, 2));
        }
        assertThat(baseLayers.get("server")).as("one runtime layer for both").isEqualTo(baseLayers.get("client"));
    }

    @Test
    void imageFilesystemRunsTheServerAsItsUserWithoutAnythingFromTheHost() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "chroot and unshare need root");
        ImageTar image = ImageTar.read(TARGET.resolve("tunnel-server-" + VERSION + "-image.tar"));
        Path root = image.extract(dir.resolve("rootfs"));

        Files.createDirectories(root.resolve("proc"));   // the loader finds libjli.so through /proc/self/exe

        Run run = Run.of(List.of("unshare", "--mount", "--pid", "--fork", "--mount-proc=" + root.resolve("proc"),
                "chroot", "--userspec=65532:65532", root.toString(),
                "/opt/tunnel/runtime/bin/java", "-jar", "/opt/tunnel/lib/tunnel-server.jar", "verify", "-c", "/etc/tunnel/server.toml"),
                Map.of("JDK_JAVA_OPTIONS", SmallVpsJvm.FLAGS));

        assertThat(run.exit).as(run.out + run.err).isZero();
        assertThat(run.err).contains("Picked up JDK_JAVA_OPTIONS");
    }
}
