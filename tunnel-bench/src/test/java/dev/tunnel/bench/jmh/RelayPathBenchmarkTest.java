package dev.tunnel.bench.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The microbenchmark measures what it claims: every byte crosses the chain, past several
 * flow-control windows (so window updates flow too), with no buffer leaked; and JMH runs it.
 */
class RelayPathBenchmarkTest {

    @Test
    @Timeout(60)
    void everyByteCrossesTheChainBothWaysPastManyWindows() {
        RelayPathBenchmark b = new RelayPathBenchmark();
        b.setUp();
        try {
            int perRequest = RelayPathBenchmark.REQUEST.length + RelayPathBenchmark.RESPONSE.length;
            // 5,000 requests: about 1.2 MB each way, several 256 KiB windows
            for (int i = 0; i < 5_000; i++) {
                assertThat(b.keepAliveRequest()).isEqualTo(perRequest);
            }
            // 64 chunks: 4 MB, sixteen windows
            for (int i = 0; i < 64; i++) {
                assertThat(b.bulkChunk()).isEqualTo(RelayPathBenchmark.CHUNK.length);
            }
        } finally {
            b.tearDown();
        }
    }

    /**
     * A run that takes seconds: the sessions' once-a-second RTT ping fires while a large DATA
     * frame is being written (an EmbeddedChannel runs due timers on each write), and must not
     * land between that frame's header and payload.
     */
    @Test
    @Timeout(60)
    void bulkCrossesWhileTheRttPingFires() {
        try (MuxChain chain = new MuxChain()) {
            ByteBuf chunk = chain.read(RelayPathBenchmark.CHUNK);
            try {
                for (int i = 0; i < 8; i++) {
                    chain.elapse(1_100);
                    assertThat(chain.publicToLocal(chunk.retainedDuplicate())).isEqualTo(RelayPathBenchmark.CHUNK.length);
                    assertThat(chain.localToPublic(chain.read(RelayPathBenchmark.RESPONSE)))
                            .isEqualTo(RelayPathBenchmark.RESPONSE.length);
                }
            } finally {
                chunk.release();
            }
        }
    }

    @Test
    @Timeout(120)
    void jmhRunsBothBenchmarks() throws Exception {
        Options options = new OptionsBuilder()
                .include(RelayPathBenchmark.class.getName())
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(300))
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        assertThat(results).hasSize(2);
        for (RunResult r : results) {
            assertThat(r.getPrimaryResult().getScore()).as(r.getParams().getBenchmark()).isPositive();
        }
    }
}
