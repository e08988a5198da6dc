package dev.tunnel.runtime;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(Hangup.onHangup(hung::countDown)).isTrue();
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
        assertThat(hung.await(10, TimeUnit.SECONDS)).as("SIGHUP handled").isTrue();
    }
}
