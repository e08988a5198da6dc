package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.server.config.ServerConfig;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The server runs exactly transport.eventLoopThreads loops, one per core by default, and no separate accept loop. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TunnelServerThreadsTest {

    @Test
    void eventLoopsFollowTheSetting() throws Exception {
        assertThat(loopsWith(1)).isEqualTo(1);
        assertThat(loopsWith(3)).isEqualTo(3);
        assertThat(loopsWith(0)).isEqualTo(Runtime.getRuntime().availableProcessors());
    }

    private static int loopsWith(int eventLoopThreads) throws Exception {
        ServerConfig config = new ServerConfig();
        config.bindAddr = "127.0.0.1";
        config.bindPort = 0;
        config.transport.eventLoopThreads = eventLoopThreads;
        try (TunnelServer server = TunnelServer.start(config)) {
            return server.eventLoops();
        }
    }
}
