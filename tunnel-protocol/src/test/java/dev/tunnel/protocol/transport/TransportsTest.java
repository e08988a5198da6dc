package dev.tunnel.protocol.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoopGroup;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TransportsTest {

    @Test
    void zeroMeansOneLoopPerCoreNotNettysTwo() {
        assertThat(Transports.threads(0)).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(Transports.threads(3)).isEqualTo(3);
    }

    @Test
    void groupHasTheConfiguredNumberOfLoops() {
        assertThat(loops(Transports.newGroup(3, "three"))).isEqualTo(3);
        assertThat(loops(Transports.newGroup(0, "per-core"))).isEqualTo(Runtime.getRuntime().availableProcessors());
    }

    private static int loops(EventLoopGroup group) {
        try {
            int n = 0;
            for (Object ignored : group) {
                n++;
            }
            return n;
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
