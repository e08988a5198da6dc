package dev.tunnel.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

@Timeout(20)
class HangupTest {

    @Test
    @EnabledOnOs(OS.LINUX)
    void sighupToThisProcessRunsTheAction() throws Exception {
        CountDownLatch hung = new CountDownLatch(1);
        boolean ignored = sighupIgnored();
        assertThat(Hangup.onHangup(hung::countDown)).as("handler installed").isEqualTo(!ignored);
        assumeFalse(ignored, "this JVM was started with SIGHUP ignored (nohup): the JVM keeps it ignored");
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
        assertThat(hung.await(10, TimeUnit.SECONDS)).as("SIGHUP handled").isTrue();
    }

    /** Whether this process inherited SIGHUP as ignored: bit 0 (signal 1) of SigIgn in /proc/self/status. */
    private static boolean sighupIgnored() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & 1) != 0;
            }
        }
        return false;
    }
}
