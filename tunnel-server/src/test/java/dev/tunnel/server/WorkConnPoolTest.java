package dev.tunnel.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tunnel.protocol.ControlFrame;
import dev.tunnel.protocol.ControlMessage.ReqWorkConn;
import dev.tunnel.protocol.ControlMessage.StartWorkConn;
import dev.tunnel.protocol.FrameDecoder;
import dev.tunnel.protocol.FrameEncoder;
import dev.tunnel.protocol.TunnelPipeline;
import dev.tunnel.protocol.relay.PipeRelay;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
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

    @Test
    void theBytesAWaitingConnectionSentLeaveWithStartWorkConnInOneFlush() {
        EmbeddedChannel visitor = publicConn();
        PipeRelay publicEnd = PipeRelay.attach(visitor);
        visitor.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n\r\n", StandardCharsets.US_ASCII));
        pool.take(visitor, publicEnd, "web", 1);
        control.runPendingTasks();
        int[] flushes = new int[1];
        EmbeddedChannel work = new EmbeddedChannel();
        work.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
            @Override
            public void flush(ChannelHandlerContext ctx) {
                flushes[0]++;
                ctx.flush();
            }
        });
        work.pipeline().addLast(TunnelPipeline.FRAME_ENCODER, new FrameEncoder());
        work.pipeline().addLast(TunnelPipeline.WORK_CONN, new PooledWorkConn());

        pool.offer(work);
        control.runPendingTasks();

        assertThat(flushes[0]).as("flushes of the work connection").isEqualTo(1);
        ByteBuf start = work.readOutbound();
        ByteBuf request = work.readOutbound();
        EmbeddedChannel decoder = new EmbeddedChannel(new FrameDecoder());
        decoder.writeInbound(start);
        ControlFrame frame = decoder.readInbound();
        assertThat(frame.message()).isEqualTo(new StartWorkConn(1, String.valueOf(visitor.remoteAddress())));
        assertThat(request.toString(StandardCharsets.US_ASCII)).isEqualTo("GET / HTTP/1.1\r\n\r\n");
        request.release();
        decoder.finishAndReleaseAll();
        work.finishAndReleaseAll();
    }

    @Test
    void aClientThatTakesIssuedNoncesGetsOneWithEachConnectionAskedFor() {
        IssuedNonces nonces = new IssuedNonces();
        WorkConnPool issuing = new WorkConnPool(control, "s1", 5, new ServerContext.PoolSettings(50, 10, 0), nonces);
        issuing.start();
        control.runPendingTasks();
        ReqWorkConn request = (ReqWorkConn) ((ControlFrame) control.readOutbound()).message();
        assertThat(request.count()).isEqualTo(5);
        assertThat(request.nonces()).hasSize(5).doesNotHaveDuplicates();
        assertThat(nonces.outstanding()).isEqualTo(5);
        assertThat(nonces.take(request.nonces().get(0))).isEqualTo(IssuedNonces.Outcome.VALID);
        issuing.close();
        assertThat(nonces.take(request.nonces().get(1))).as("the session ended").isEqualTo(IssuedNonces.Outcome.UNKNOWN);
    }

    @Test
    void beyondTheNoncesASessionMayHoldConnectionsAreAskedForWithout() {
        IssuedNonces nonces = new IssuedNonces();
        nonces.issue(IssuedNonces.MAX_OUTSTANDING - 3);
        WorkConnPool issuing = new WorkConnPool(control, "s1", 5, new ServerContext.PoolSettings(50, 10, 0), nonces);
        for (int i = 0; i < 10; i++) {
            issuing.take(publicConn(), null, "web", 1);
        }
        control.runPendingTasks();
        List<ReqWorkConn> sent = new ArrayList<>();
        Object msg;
        while ((msg = control.readOutbound()) != null) {
            sent.add((ReqWorkConn) ((ControlFrame) msg).message());
        }
        assertThat(sent).extracting(ReqWorkConn::count).containsExactly(3, 7);
        assertThat(sent.get(0).nonces()).hasSize(3);
        assertThat(sent.get(1).nonces()).as("these answer their own challenge").isEmpty();
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
