package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.ReqWorkConn;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the pool asks the client for, on the control connection (an EmbeddedChannel). */
class WorkConnPoolTest {
    private final EmbeddedChannel control = new EmbeddedChannel();
    private final List<EmbeddedChannel> publicConns = new ArrayList<>();
    private final WorkConnPool pool = new WorkConnPool(control, "s1", 5, new ServerContext.PoolSettings(50, 10, 0));

    @AfterEach
    void close() {
        publicConns.forEach(EmbeddedChannel::finishAndReleaseAll);
        control.finishAndReleaseAll();
    }

    @Test
    void asksForThePoolAtStart() {
        pool.start();
        control.runPendingTasks();
        assertThat(requests()).containsExactly(5);
    }

    @Test
    void connectionsThatWaitDuringOneLoopTurnAreAskedForInOneRequest() {
        for (int i = 0; i < 3; i++) {
            pool.take(publicConn(), null, "web", 1);
        }
        assertThat(requests()).as("nothing before the turn ends").isEmpty();
        control.runPendingTasks();
        assertThat(requests()).containsExactly(3);
        pool.take(publicConn(), null, "web", 1);
        control.runPendingTasks();
        assertThat(requests()).containsExactly(1);
    }

    @Test
    void aBurstIsAskedForInRequestsTheClientHonoursWhole() {
        for (int i = 0; i < 250; i++) {
            pool.take(publicConn(), null, "web", 1);
        }
        control.runPendingTasks();
        assertThat(requests()).containsExactly(100, 100, 50);
    }

    private EmbeddedChannel publicConn() {
        EmbeddedChannel ch = new EmbeddedChannel();
        publicConns.add(ch);
        return ch;
    }

    private List<Integer> requests() {
        List<Integer> counts = new ArrayList<>();
        Object msg;
        while ((msg = control.readOutbound()) != null) {
            counts.add(((ReqWorkConn) ((ControlFrame) msg).message()).count());
        }
        return counts;
    }
}
