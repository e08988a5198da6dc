package dev.tunnel.dist;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Launcher homes and fake Java installs for {@link LauncherTest}. */
final class Fakes {
    private static final Path LAUNCHER = Path.of("src/bin/launcher.sh");
    /** What the launcher runs besides java: a PATH holding only these finds no java. */
    private static final List<String> TOOLS = List.of("sh", "readlink", "basename", "dirname", "sed", "head");

    private Fakes() {
    }

    /** A launcher home: bin/NAME (the launcher) and an empty lib/NAME.jar. */
    static Path home(Path home, String name) throws Exception {
        Files.createDirectories(home.resolve("bin"));
        Files.createDirectories(home.resolve("lib"));
        Path launcher = home.resolve("bin/" + name);
        Files.copy(LAUNCHER, launcher);
        launcher.toFile().setExecutable(true);
        Files.writeString(home.resolve("lib/" + name + ".jar"), "");
        return home;
    }

    /**
     * A Java install at {@code javaHome} of the given version: a release file saying it, and a
     * bin/java that prints its path and arguments one per line (or, for -version, the version line
     * a real one prints on stderr).
     */
    static Path java(Path javaHome, String version) throws Exception {
        Path java = Files.createDirectories(javaHome.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\n"
                + "if [ \"$1\" = -version ]; then echo 'openjdk version \"" + version + "\" 2024-01-16' >&2; exit 0; fi\n"
                + "printf '%s\\n' \"$0\" \"$@\"\n");
        java.toFile().setExecutable(true);
        Files.writeString(javaHome.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\n");
        return javaHome;
    }

    /** A PATH of copies of the launcher's tools (and {@code extra}, if not null), without the system's java. */
    static String toolsPath(Path dir, Path extra) throws Exception {
        Path tools = Files.createDirectories(dir.resolve("tools"));
        for (String tool : TOOLS) {
            for (String bin : List.of("/usr/bin/", "/bin/")) {
                Path real = Path.of(bin + tool);
                if (Files.isExecutable(real) && !Files.exists(tools.resolve(tool))) {
                    Files.copy(real, tools.resolve(tool), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return extra == null ? tools.toString() : tools + ":" + extra;
    }
}
