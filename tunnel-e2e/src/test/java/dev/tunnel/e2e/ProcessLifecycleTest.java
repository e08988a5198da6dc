package dev.tunnel.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.client.ClientMain;
import dev.tunnel.server.ServerMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jars as a user runs them, as real processes: SIGTERM ({@code systemctl stop}) is a clean
 * stop that exits 0 and says so, and Netty's own debug lines stay out of what a user reads.
 */
@Timeout(90)
@EnabledOnOs(OS.LINUX)
class ProcessLifecycleTest {
    private static final Duration START = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void sigtermStopsServerAndClientCleanlyWithExitZero() throws Exception {
        int bindPort = FreePorts.one();
        int remotePort = FreePorts.one();
        Path server = Files.writeString(dir.resolve("server.toml"), """
                bindAddr = "127.0.0.1"
                bindPort = %d
                auth.token = "process-test"
                """.formatted(bindPort));
        Path client = Files.writeString(dir.resolve("client.toml"), """
                serverAddr = "127.0.0.1"
                serverPort = %d
                auth.token = "process-test"
                [[proxies]]
                name = "app"
                type = "tcp"
                localPort = 9
                remotePort = %d
                """.formatted(bindPort, remotePort));
        try (JavaProcess s = JavaProcess.start(ServerMain.class, dir, "-c", server.toString())) {
            s.awaitLine("listening on", START);
            try (JavaProcess c = JavaProcess.start(ClientMain.class, dir, "-c", client.toString())) {
                c.awaitLine("proxy [app] started", START);
                assertThat(c.terminate(START)).as("client exit status after SIGTERM: %s", c.lines()).isZero();
                assertThat(c.lines()).as("a normal stop warns of nothing").noneMatch(l -> l.contains(" WARN "));
            }
            assertThat(s.terminate(START)).as("server exit status after SIGTERM: %s", s.lines()).isZero();
            assertThat(s.lines()).anyMatch(l -> l.contains(" INFO ") && l.contains("tunnel server stopped"));
        }
    }

    @Test
    void debugLevelLeavesNettyInternalsOut() throws Exception {
        Path server = Files.writeString(dir.resolve("server.toml"), """
                bindAddr = "127.0.0.1"
                bindPort = %d
                auth.token = "process-test"
                log.level = "debug"
                """.formatted(FreePorts.one()));
        try (JavaProcess s = JavaProcess.start(ServerMain.class, dir, "-c", server.toString())) {
            s.awaitLine("listening on", START);
            assertThat(s.terminate(START)).isZero();
            assertThat(s.lines()).as("Netty's start-up lines print its -Dio.netty.* settings")
                    .noneMatch(l -> l.contains("-Dio.netty."));
        }
    }

    @Test
    void certsPrintsTheConfigLinesWithoutDebugLinesAbove() throws Exception {
        try (JavaProcess certs = JavaProcess.start(ServerMain.class, dir, "certs", "--out", dir.resolve("pki").toString(),
                "--server-name", "vps.example", "--client", "home")) {
            assertThat(certs.exitStatus(START)).as("%s", certs.lines()).isZero();
            assertThat(certs.lines()).anyMatch(l -> l.startsWith("Wrote "));
            assertThat(certs.lines()).noneMatch(l -> l.contains("DEBUG"));
        }
    }
}
