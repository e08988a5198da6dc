package dev.tunnel.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(20)
class ProcessBarrierTest {
    @TempDir
    Path dir;

    @Test
    void noPartyPassesAPhaseBeforeTheLastHasReachedIt() throws Exception {
        ProcessBarrier first = new ProcessBarrier(dir, 2, 10_000);
        ProcessBarrier second = new ProcessBarrier(dir, 2, 10_000);
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return first.await("connected");
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);
        assertThat(waiting).as("the first waits for the second").isNotDone();
        assertThat(second.await("connected")).isTrue();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void phasesAreCountedApartAndAPartyAloneGoesOnAfterTheTimeout() throws Exception {
        ProcessBarrier other = new ProcessBarrier(dir, 2, 50);
        assertThat(other.await("connected")).as("alone at the first phase").isFalse();
        ProcessBarrier alone = new ProcessBarrier(dir, 2, 200);
        long start = System.nanoTime();
        assertThat(alone.await("drained")).as("nobody else came").isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(200);
        assertThat(ProcessBarrier.NONE.await("drained")).isTrue();
    }
}
